package io.awscsi.efs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemTreeTest {

  @TempDir Path dir;
  private Path root;
  private Path outside;

  @BeforeEach
  void setUp() throws IOException {
    root = Files.createDirectory(dir.resolve("fs-root"));
    outside = Files.createDirectory(dir.resolve("outside"));
    Files.writeString(outside.resolve("precious"), "keep me");
  }

  @Test
  void removesATreeWithoutFollowingLinksOutOfIt() throws IOException {
    Path volume = Files.createDirectories(root.resolve("base/pvc-1/deep"));
    Files.writeString(volume.resolve("file"), "data");
    Files.createSymbolicLink(root.resolve("base/pvc-1/link-to-outside"), outside);

    FileSystemTree.removeTree(root.resolve("base/pvc-1"));

    assertThat(root.resolve("base/pvc-1")).doesNotExist();
    assertThat(root.resolve("base")).isDirectory();
    assertThat(outside.resolve("precious")).hasContent("keep me");
  }

  @Test
  void refusesAPathThroughASymbolicLink() throws IOException {
    Files.createSymbolicLink(root.resolve("base"), outside);

    assertFailedPrecondition(() -> FileSystemTree.existingDirectory(root, "/base/precious"), "/base");
    assertFailedPrecondition(() -> FileSystemTree.createParents(root, "/base/pvc-1"), "/base");
    assertFailedPrecondition(() -> FileSystemTree.createDirectory(root, "/base/pvc-1", -1, -1, 0777), "/base");
    assertFailedPrecondition(() -> FileSystemTree.removeTree(root, "/base/sub"), "/base");
    assertThat(outside.resolve("pvc-1")).doesNotExist();
    assertThat(outside.resolve("precious")).exists();
  }

  @Test
  void aFileWhereADirectoryBelongsIsAFailedPrecondition() throws IOException {
    Files.writeString(root.resolve("base"), "not a directory");

    assertFailedPrecondition(() -> FileSystemTree.createDirectory(root, "/base/pvc-1", -1, -1, 0777), "/base");
  }

  @Test
  void createsTheVolumeDirectoryWithItsOwnerAndExactModeThroughItsDescriptor() throws IOException {
    assertThat(FileSystemTree.createDirectory(root, "/base/x/pvc-1", 1000, 1000, 02775)).isTrue();
    assertThat(FileSystemTree.createDirectory(root, "/base/x/pvc-1", 1000, 1000, 02775)).isFalse();

    assertThat(Files.getAttribute(root.resolve("base/x/pvc-1"), "unix:mode")).isEqualTo(042775);
    assertThat(Files.getAttribute(root.resolve("base/x/pvc-1"), "unix:uid")).isEqualTo(1000);
    assertThat(Files.getAttribute(root.resolve("base/x"), "unix:uid")).as("parents stay the controller's")
        .isEqualTo(Files.getAttribute(root, "unix:uid"));
  }

  @Test
  void aVolumeDirectoryThatIsALinkIsRefusedAndWhatItPointsAtKept() throws IOException {
    Files.createDirectories(root.resolve("base"));
    Files.createSymbolicLink(root.resolve("base/pvc-1"), outside);

    assertFailedPrecondition(() -> FileSystemTree.removeTree(root, "/base/pvc-1"), "/base/pvc-1");
    assertFailedPrecondition(() -> FileSystemTree.createDirectory(root, "/base/pvc-1", -1, -1, 0777),
        "/base/pvc-1");
    assertThat(outside.resolve("precious")).hasContent("keep me");
    assertThat(Files.getAttribute(outside, "unix:mode")).isNotEqualTo(040777);
  }

  @Test
  void removesBelowTheMountRootAndMissingIsSuccess() throws IOException {
    Files.createDirectories(root.resolve("base/pvc-1/a/b"));
    Files.createSymbolicLink(root.resolve("base/pvc-1/a/out"), outside);

    assertThat(FileSystemTree.removeTree(root, "/base/pvc-1")).isTrue();
    assertThat(FileSystemTree.removeTree(root, "/base/pvc-1")).isFalse();
    assertThat(FileSystemTree.removeTree(root, "/nope/pvc-1")).isFalse();
    assertThat(root.resolve("base")).isDirectory();
    assertThat(outside.resolve("precious")).hasContent("keep me");
  }

  private static void assertFailedPrecondition(ThrowingCallable call, String path) {
    assertThatThrownBy(call).isInstanceOfSatisfying(DriverException.class, e -> {
      assertThat(e.error()).isInstanceOf(DriverError.FailedPrecondition.class);
      assertThat(e.getMessage()).contains(path);
    });
  }

  @Test
  void refusesToRemoveAVolumeDirectoryThatIsALink() throws IOException {
    Files.createSymbolicLink(root.resolve("pvc-1"), outside);

    assertFailedPrecondition(() -> FileSystemTree.removeTree(root.resolve("pvc-1")), "pvc-1");
    assertThat(outside.resolve("precious")).exists();
  }

  @Test
  void aMissingComponentIsEmptyAndTheRootIsNeverAVolumeDirectory() throws IOException {
    assertThat(FileSystemTree.existingDirectory(root, "/nope/x")).isEqualTo(Optional.empty());
    assertThatThrownBy(() -> FileSystemTree.existingDirectory(root, "/"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void createsParentsButNotTheLeaf() throws IOException {
    Path leaf = FileSystemTree.createParents(root, "/a/b/c");

    assertThat(root.resolve("a/b")).isDirectory();
    assertThat(leaf).isEqualTo(root.resolve("a/b/c")).doesNotExist();
  }

  @Test
  void theLedgerRecordsOncePerVolume() throws IOException {
    var entry = new DirectoryLedger.Entry("efs:fs-0123abcd:/base/pvc-1", "/base", "/base/pvc-1", 0);

    assertThat(DirectoryLedger.record(root, entry).written()).isTrue();
    var again = DirectoryLedger.record(root, new DirectoryLedger.Entry(entry.volumeId(), "/other", "/other/x", 9));

    assertThat(again.written()).isFalse();
    assertThat(again.entry()).isEqualTo(entry);
    assertThat(DirectoryLedger.read(root, entry.volumeId())).contains(entry);
    assertThat(DirectoryLedger.read(root, "efs:fs-0123abcd:/base/pvc-2")).isEmpty();
    DirectoryLedger.remove(root, entry.volumeId());
    assertThat(DirectoryLedger.read(root, entry.volumeId())).isEmpty();
  }
}
