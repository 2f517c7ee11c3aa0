package io.awscsi.core.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.host.KubeletDirectory.Resolution;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Caller paths resolved once against the kubelet directory: a tree with a link to the outside, a link inside, a
 * dangling link and a link as the last component. {@code @K} in the table is the kubelet directory, {@code @O} a
 * directory outside it, {@code @R} the temporary root.
 */
class KubeletDirectoryTest {

  @TempDir Path temporary;
  private Path root;
  private Path kubelet;
  private Path outside;

  @BeforeEach
  void tree() throws IOException {
    root = temporary.toRealPath();
    kubelet = Files.createDirectories(root.resolve("kubelet"));
    outside = Files.createDirectories(root.resolve("outside"));
    Files.createDirectories(kubelet.resolve("pods/a"));
    Files.createSymbolicLink(kubelet.resolve("evil"), outside);
    Files.createSymbolicLink(kubelet.resolve("alias"), kubelet.resolve("pods"));
    Files.createSymbolicLink(kubelet.resolve("dangling"), root.resolve("nowhere"));
    Files.createSymbolicLink(kubelet.resolve("pods/a/link"), outside);
    Files.createSymbolicLink(root.resolve("kubelet-link"), kubelet);
    Files.createDirectories(root.resolve("kubelet2"));
  }

  private Path expand(String text) {
    return Path.of(text.replace("@K", kubelet.toString()).replace("@O", outside.toString())
        .replace("@R", root.toString()));
  }

  @ParameterizedTest(name = "{0} -> {1} {2}")
  @CsvSource(delimiter = '|', value = {
      "@K/pods/a/mount                | Inside         | @K/pods/a/mount",
      "@K/pods/new/deeper/mount       | Inside         | @K/pods/new/deeper/mount",
      "@K/alias/a/mount               | Inside         | @K/pods/a/mount",
      "@R/kubelet-link/pods/a/mount   | Inside         | @K/pods/a/mount",
      "@K/evil/mount                  | Outside        | @O/mount",
      "@K/evil/missing/deeper         | Outside        | @O/missing/deeper",
      "@K/alias/../../outside/x       | Outside        | @O/x",
      "@K                             | Outside        | @K",
      "@R/kubelet-link                | Outside        | @R/kubelet-link",
      "@R/kubelet2/x                  | Outside        | @R/kubelet2/x",
      "/                              | Outside        | /",
      "/proc/self                     | Outside        | /proc/self",
      "@K/dangling/mount              | DanglingParent | @K/dangling",
      "@K/dangling/a/b                | DanglingParent | @K/dangling",
      "@K/pods/a/link                 | LinkAtEnd      | @K/pods/a/link",
      "@K/evil                        | LinkAtEnd      | @K/evil",
  })
  void eachPathIsResolvedOnceAndJudgedByWhereItLeads(String requested, String kind, String expected) {
    Path path = expand(requested.strip());
    // The service hands in clean paths (RequestParser refuses '..'); the ".." row checks the kernel's own rule.
    Resolution r = new KubeletDirectory(kubelet).locate(requested.contains("..") ? path : path.normalize());
    assertThat(r.getClass().getSimpleName()).isEqualTo(kind.strip());
    Path where = switch (r) {
      case Resolution.Inside(Path p) -> p;
      case Resolution.Outside(Path p) -> p;
      case Resolution.LinkAtEnd(Path p, String target) -> p;
      case Resolution.DanglingParent(Path link) -> link;
      case Resolution.Unresolvable(Path at, String reason) -> at;
    };
    assertThat(where).isEqualTo(expand(expected.strip()));
  }

  @Test
  void nothingIsCreatedWhileResolving() {
    new KubeletDirectory(kubelet).locate(kubelet.resolve("evil/made/here"));
    new KubeletDirectory(kubelet).locate(kubelet.resolve("pods/new/deeper/mount"));
    assertThat(outside.resolve("made")).doesNotExist();
    assertThat(kubelet.resolve("pods/new")).doesNotExist();
  }

  @Test
  void theConfiguredDirectoryIsResolvedOnceAtStart() throws IOException {
    assertThat(KubeletDirectory.resolve(root.resolve("kubelet-link")).root()).isEqualTo(kubelet);
    assertThat(KubeletDirectory.resolve(kubelet).root()).isEqualTo(kubelet);
    assertThatThrownBy(() -> KubeletDirectory.resolve(root.resolve("absent"))).hasMessageContaining("does not exist");
    Path file = Files.writeString(root.resolve("file"), "x");
    assertThatThrownBy(() -> KubeletDirectory.resolve(file)).hasMessageContaining("not a directory");
    assertThatThrownBy(() -> KubeletDirectory.resolve(Path.of("relative"))).hasMessageContaining("absolute");
  }

  @ParameterizedTest(name = "{0} staging: {1}")
  @CsvSource(delimiter = '|', value = {
      "plugins/kubernetes.io/csi/ebs.csi.aws.com/0a1b2c/globalmount        | true",
      "plugins/kubernetes.io/csi/pv/pvc-1/globalmount                     | true",
      "plugins/kubernetes.io/csi/volumeDevices/staging/pvc-1              | true",
      "plugins/kubernetes.io/csi/volumeDevices/publish/pvc-1/pod-uid      | false",
      "pods/uid/volumes/kubernetes.io~csi/pvc-1/mount                     | false",
      "pods/uid/volumes/kubernetes.io~csi/globalmount                     | false",
      "plugins/kubernetes.io/csi/globalmount                              | false",
      "plugins/ebs.csi.aws.com/globalmount                                | false"})
  void theKubeletsStagingLayoutIsKnownWithoutWhatThisProcessStaged(String relative, boolean staging) {
    KubeletDirectory directory = new KubeletDirectory(kubelet);
    assertThat(directory.isStagingPath(kubelet.resolve(relative))).isEqualTo(staging);
    assertThat(directory.isStagingPath(outside.resolve(relative))).isFalse();
  }
}
