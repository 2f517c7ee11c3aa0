package io.awscsi.efs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
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

    assertThatThrownBy(() -> FileSystemTree.existingDirectory(root, "/base/precious"))
        .isInstanceOf(IOException.class).hasMessageContaining("symbolic link");
    assertThatThrownBy(() -> FileSystemTree.createParents(root, "/base/pvc-1"))
        .isInstanceOf(IOException.class).hasMessageContaining("symbolic link");
  }

  @Test
  void refusesToRemoveAVolumeDirectoryThatIsALink() throws IOException {
    Files.createSymbolicLink(root.resolve("pvc-1"), outside);

    assertThatThrownBy(() -> FileSystemTree.removeTree(root.resolve("pvc-1")))
        .isInstanceOf(IOException.class).hasMessageContaining("symbolic link");
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
