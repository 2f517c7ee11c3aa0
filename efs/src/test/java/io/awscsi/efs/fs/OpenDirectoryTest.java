package io.awscsi.efs.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Handle-relative directory work. The swaps a racing tenant makes are prepared deterministically: the directory is
 * opened first, then renamed away and replaced by a link to {@code outside}, then the operation runs; every effect
 * must land in the real (moved) directory and none outside.
 */
class OpenDirectoryTest {

  @TempDir Path dir;
  private Path root;
  private Path outside;

  @BeforeEach
  void setUp() throws IOException {
    root = Files.createDirectory(dir.resolve("fs"));
    outside = Files.createDirectory(dir.resolve("outside"));
    for (int i = 0; i < 20; i++) {
      Files.writeString(outside.resolve("canary-" + i), "keep");
    }
    Files.createDirectory(outside.resolve("sub"));
  }

  private List<String> canaries() throws IOException {
    try (var files = Files.list(outside)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void aLinkAFileAndAMissingNameAreRefusedAsChildren() throws IOException {
    Files.createSymbolicLink(root.resolve("link"), outside);
    Files.writeString(root.resolve("file"), "x");
    try (OpenDirectory fs = OpenDirectory.openTrusted(root)) {
      assertThatThrownBy(() -> fs.openChild("link")).isInstanceOf(LinkRefusedException.class)
          .hasMessageContaining(root.resolve("link").toString()).hasMessageContaining("symbolic link");
      assertThatThrownBy(() -> fs.openChild("file")).isInstanceOf(NotDirectoryException.class);
      assertThatThrownBy(() -> fs.openChild("nope")).isInstanceOf(NoSuchFileException.class);
      assertThat(fs.openChildIfPresent("nope")).isEmpty();
    }
  }

  @Test
  void namesThatWouldLeaveTheDirectoryAreRefused() throws IOException {
    Files.createDirectories(root.resolve("a/b"));
    try (OpenDirectory a = OpenDirectory.openTrusted(root.resolve("a"))) {
      for (String name : List.of("..", ".", "", "b/..", "/etc", "x\0y")) {
        assertThatThrownBy(() -> a.openChild(name)).as(name).isInstanceOf(FileSystemException.class)
            .hasMessageContaining("single path component");
        assertThatThrownBy(() -> a.makeChild(name, 0755)).as(name).isInstanceOf(FileSystemException.class);
        assertThatThrownBy(() -> a.removeTree(name)).as(name).isInstanceOf(FileSystemException.class);
      }
    }
    assertThat(root.resolve("a/b")).isDirectory();
  }

  @Test
  void removesATreeAndUnlinksLinksInsideWithoutFollowingThem() throws IOException {
    Path volume = Files.createDirectories(root.resolve("vol/a/b/c"));
    Files.writeString(volume.resolve("file"), "data");
    Files.createSymbolicLink(root.resolve("vol/a/to-outside"), outside);
    Files.createSymbolicLink(root.resolve("vol/a/b/to-outside-file"), outside.resolve("canary-1"));
    List<String> before = canaries();

    try (OpenDirectory fs = OpenDirectory.openTrusted(root)) {
      assertThat(fs.removeTree("vol")).isTrue();
      assertThat(fs.removeTree("vol")).as("missing is success").isFalse();
    }

    assertThat(root.resolve("vol")).doesNotExist();
    assertThat(canaries()).isEqualTo(before);
  }

  @Test
  void aVolumeDirectorySwappedForALinkAfterItsParentWasOpenedLosesOnlyTheLink() throws IOException {
    Files.createDirectories(root.resolve("base/vol/sub"));
    List<String> before = canaries();
    try (OpenDirectory base = OpenDirectory.openTrusted(root.resolve("base"))) {
      // The tenant's swap, between the walk to the parent and the removal.
      Files.move(root.resolve("base/vol"), root.resolve("moved"));
      Files.createSymbolicLink(root.resolve("base/vol"), outside);

      assertThat(base.removeTree("vol")).isTrue();
    }
    assertThat(root.resolve("base/vol")).doesNotExist();
    assertThat(canaries()).isEqualTo(before);
    assertThat(outside.resolve("sub")).isDirectory();
  }

  @Test
  void anOpenDirectoryKeepsActingOnTheRealDirectoryWhenItsNameBecomesALink() throws IOException {
    Files.createDirectories(root.resolve("vol/sub"));
    Files.writeString(root.resolve("vol/sub/f"), "x");
    List<String> before = canaries();
    Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rwxr-xr-x"));
    try (OpenDirectory fs = OpenDirectory.openTrusted(root); OpenDirectory vol = fs.openChild("vol")) {
      Files.move(root.resolve("vol"), root.resolve("moved"));
      Files.createSymbolicLink(root.resolve("vol"), outside);

      assertThat(vol.makeChild("made", 0755)).isTrue();
      vol.setOwnerAndMode(-1, -1, 0750);
      assertThat(vol.removeTree("sub")).isTrue();
      assertThat(vol.list()).containsExactly("made");
    }
    assertThat(root.resolve("moved/made")).isDirectory();
    assertThat(root.resolve("moved/sub")).doesNotExist();
    assertThat(outside.resolve("made")).doesNotExist();
    assertThat(outside.resolve("sub")).isDirectory();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("moved"))))
        .isEqualTo("rwxr-x---");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(outside))).isEqualTo("rwxr-xr-x");
    assertThat(canaries()).isEqualTo(before);
  }

  @Test
  void aWalkStopsAtALinkInAnyComponent() throws IOException {
    Files.createDirectories(root.resolve("a"));
    Files.createSymbolicLink(root.resolve("a/b"), outside);
    try (OpenDirectory fs = OpenDirectory.openTrusted(root)) {
      assertThatThrownBy(() -> fs.walk(List.of("a", "b", "sub"))).isInstanceOf(LinkRefusedException.class)
          .hasMessageContaining(root.resolve("a/b").toString());
      assertThat(fs.walk(List.of("a", "missing", "x"))).isEmpty();
      try (OpenDirectory a = fs.walk(List.of("a")).orElseThrow()) {
        assertThat(a.list()).containsExactly("b");
      }
    }
  }

  @Test
  void createsWithAnExactModeAndOwnerSetgidIncluded() throws IOException {
    try (OpenDirectory fs = OpenDirectory.openTrusted(root)) {
      assertThat(fs.makeChild("shared", 0700)).isTrue();
      assertThat(fs.makeChild("shared", 0700)).as("exists").isFalse();
      try (OpenDirectory shared = fs.openChild("shared")) {
        shared.setOwnerAndMode(1000, 1001, 02775);
        EntryStatus status = shared.status();
        assertThat(status.kind()).isEqualTo(EntryStatus.Kind.DIRECTORY);
        assertThat(status.mode()).isEqualTo(02775);
        assertThat(status.uid()).isEqualTo(1000);
        assertThat(status.gid()).isEqualTo(1001);
      }
    }
    assertThat(Files.getAttribute(root.resolve("shared"), "unix:mode", LinkOption.NOFOLLOW_LINKS))
        .isEqualTo(042775);
  }

  @Test
  void visitCountsWhatIsInsideAndNeverFollowsALink() throws IOException {
    Files.createDirectories(root.resolve("a/b"));
    Files.write(root.resolve("a/one"), new byte[100]);
    Files.write(root.resolve("a/b/two"), new byte[23]);
    Files.createSymbolicLink(root.resolve("a/b/outside"), outside);
    List<EntryStatus> seen = new ArrayList<>();
    try (OpenDirectory fs = OpenDirectory.openTrusted(root)) {
      fs.visit(seen::add);
    }
    assertThat(seen).hasSize(5);
    assertThat(seen.stream().mapToLong(e -> e.kind() == EntryStatus.Kind.REGULAR_FILE ? e.size() : 0).sum())
        .isEqualTo(123);
    assertThat(seen).filteredOn(e -> e.kind() == EntryStatus.Kind.SYMBOLIC_LINK).hasSize(1);
  }

  @Test
  void listingAgainStartsFromTheBeginning() throws IOException {
    IntStream.range(0, 300).forEach(i -> {
      try {
        Files.createFile(root.resolve("f" + i));
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    });
    try (OpenDirectory fs = OpenDirectory.openTrusted(root)) {
      assertThat(fs.list()).hasSize(300);
      assertThat(fs.list()).hasSize(300);
    }
  }
}
