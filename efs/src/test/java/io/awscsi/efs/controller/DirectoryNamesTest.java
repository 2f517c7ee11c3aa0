package io.awscsi.efs.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class DirectoryNamesTest {

  static Stream<Arguments> components() {
    return Stream.of(
        Arguments.of("", "is empty"),
        Arguments.of(".", "is \".\""),
        Arguments.of("..", "is \"..\""),
        Arguments.of("a/b", "contains \"/\""),
        Arguments.of("/", "contains \"/\""),
        Arguments.of("a\0", "a NUL byte at character 1"),
        Arguments.of("a\nb", "U+000A"),
        Arguments.of("\u001b[31m", "U+001B"),
        Arguments.of("a\u007f", "U+007F"),
        Arguments.of("a\u0085", "U+0085"),
        Arguments.of("a\ud800", "unpaired UTF-16 surrogate"),
        Arguments.of(".efs-csi-volumes", "reserved"),
        Arguments.of(".efs-csi", "reserved"),
        Arguments.of("x".repeat(256), "256 bytes long"),
        Arguments.of("ü".repeat(128), "256 bytes long"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("components")
  void refusesWhatIsNotOneDirectoryName(String value, String problem) {
    assertThat(DirectoryNames.componentProblem(value)).hasValueSatisfying(p -> assertThat(p).contains(problem));
  }

  @ParameterizedTest
  @ValueSource(strings = {"pvc-1", "a.b", "...", "..a", "a..", ".hidden", "efs-csi-volumes", "x.efs-csi", "ünïcode",
      "with space", "255"})
  void acceptsOrdinaryNames(String value) {
    assertThat(DirectoryNames.componentProblem(value)).isEmpty();
    assertThat(DirectoryNames.componentProblem("y".repeat(255))).isEmpty();
  }

  @Test
  void longNamesMayBeLeftToTheCallerToShorten() {
    assertThat(DirectoryNames.componentProblem("x".repeat(300), false)).isEmpty();
    assertThat(DirectoryNames.componentProblem("x/".repeat(150), false)).isPresent();
  }

  static Stream<Arguments> paths() {
    return Stream.of(
        Arguments.of("/a/\0/b", "NUL"),
        Arguments.of("/a/.efs-csi-volumes", "reserved"),
        Arguments.of("/.efs-csi-volumes/x", "reserved"),
        Arguments.of("/" + "d".repeat(256), "256 bytes"),
        Arguments.of(("/" + "d".repeat(255)).repeat(16), "a path has at most 4095"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("paths")
  void refusesPathsTheKernelOrTheDriverWouldNot(String path, String problem) {
    assertThat(DirectoryNames.pathProblem(path)).hasValueSatisfying(p -> assertThat(p).contains(problem));
  }

  @Test
  void theLedgerIsReservedAndOperatorPathsWithSlashesAreFine() {
    assertThat(DirectoryNames.reserved("/" + DirectoryLedger.DIRECTORY)).isTrue();
    assertThat(DirectoryNames.reserved("/" + DirectoryLedger.DIRECTORY + "/abc")).isTrue();
    assertThat(DirectoryNames.reserved("/base/pvc-1")).isFalse();
    assertThat(DirectoryNames.pathProblem("/dynamic/team/data-1")).isEmpty();
    assertThat(DirectoryNames.pathProblem(("/" + "d".repeat(255)).repeat(15))).isEmpty();
  }

  @Test
  void quotedEscapesControlsAndStaysShort() {
    assertThat(DirectoryNames.quoted("a\nb\0")).isEqualTo("\"a\\nb\\u0000\"");
    assertThat(DirectoryNames.quoted("z".repeat(3_000_000))).hasSizeLessThan(200).endsWith("(3000000 characters)");
  }
}
