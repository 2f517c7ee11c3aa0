package io.awscsi.core.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class MountInfoTest {

  @Test
  void parsesAllFieldsOfALineWithoutOptionalFields() {
    var mount = MountInfo.parse("27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resuid=65534");

    assertThat(mount).isEqualTo(new MountInfo(27, 1, "254:0", "/", Path.of("/"), List.of("rw", "relatime"),
        List.of(), "ext4", "/dev/vda", List.of("rw", "discard", "resuid=65534")));
    assertThat(mount.readOnly()).isFalse();
  }

  static Stream<Arguments> optionalFields() {
    return Stream.of(
        Arguments.of("36 35 98:0 /mnt1 /mnt2 rw,noatime - ext3 /dev/root rw", List.of()),
        Arguments.of("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw", List.of("master:1")),
        Arguments.of("36 35 98:0 /mnt1 /mnt2 rw,noatime shared:7 master:1 propagate_from:2 - ext3 /dev/root rw",
            List.of("shared:7", "master:1", "propagate_from:2")));
  }

  @ParameterizedTest
  @MethodSource("optionalFields")
  void readsAnyNumberOfOptionalFieldsBeforeTheSeparator(String line, List<String> expected) {
    var mount = MountInfo.parse(line);

    assertThat(mount.optionalFields()).isEqualTo(expected);
    assertThat(mount.fsType()).isEqualTo("ext3");
    assertThat(mount.source()).isEqualTo("/dev/root");
    assertThat(mount.root()).isEqualTo("/mnt1");
    assertThat(mount.mountPoint()).isEqualTo(Path.of("/mnt2"));
  }

  @Test
  void decodesOctalEscapesInPathsAndSource() {
    var mount = MountInfo.parse("50 27 7:0 /dir\\040a /var/lib/kubelet/my\\040vol\\011tab\\134back ro,nosuid "
        + "shared:3 - fuse.sshfs user@host:/with\\040space rw,user_id=0");

    assertThat(mount.root()).isEqualTo("/dir a");
    assertThat(mount.mountPoint()).isEqualTo(Path.of("/var/lib/kubelet/my vol\ttab\\back"));
    assertThat(mount.source()).isEqualTo("user@host:/with space");
    assertThat(mount.fsType()).isEqualTo("fuse.sshfs");
    assertThat(mount.readOnly()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"\\", "a\\04", "a\\089", "tail\\"})
  void leavesBackslashesThatAreNotOctalEscapesAlone(String field) {
    assertThat(MountInfo.unescape(field)).isEqualTo(field);
  }

  @Test
  void aSeparatorInsideTheFixedFieldsIsNotMistakenForTheEndOfOptionalFields() {
    // A mount point literally named "-" must not end the optional fields early.
    var mount = MountInfo.parse("60 27 0:50 / /- rw - tmpfs tmpfs rw");

    assertThat(mount.mountPoint()).isEqualTo(Path.of("/-"));
    assertThat(mount.fsType()).isEqualTo("tmpfs");
  }

  @Test
  void toleratesAnEmptySuperOptionsField() {
    var mount = MountInfo.parse("61 27 0:51 / /x rw - tmpfs none");

    assertThat(mount.source()).isEqualTo("none");
    assertThat(mount.superOptions()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "27 1 254:0 / / rw,relatime ext4 /dev/vda rw",
      "27 1 254:0 / / rw - ext4",
      "x 1 254:0 / / rw - ext4 /dev/vda rw",
      "garbage"})
  void rejectsLinesWithoutTheDocumentedShape(String line) {
    assertThatThrownBy(() -> MountInfo.parse(line))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(line);
  }

  @Test
  void parsesAWholeTableSkippingBlankLines() {
    var mounts = MountInfo.parseAll("""
        22 27 0:21 / /proc rw,relatime - proc proc rw

        27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
        """);

    assertThat(mounts).extracting(MountInfo::mountPoint).containsExactly(Path.of("/proc"), Path.of("/"));
  }
}
