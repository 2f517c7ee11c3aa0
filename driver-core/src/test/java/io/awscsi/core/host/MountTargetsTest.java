package io.awscsi.core.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.host.MountTargets.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a mount may be made, against a mount table written by the test. */
class MountTargetsTest {

  @TempDir Path dir;
  private Path mountInfo;
  private LinuxMounter mounter;

  @BeforeEach
  void setUp() throws IOException {
    dir = dir.toRealPath();
    mountInfo = dir.resolve("mountinfo");
    Files.writeString(mountInfo, "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n");
    mounter = new LinuxMounter(new RecordingCommandRunner(), mountInfo, Duration.ofSeconds(5));
  }

  @Test
  void aMissingOrEmptyDirectoryOnAnOrdinaryFileSystemMayHoldAMount() throws IOException {
    assertThat(MountTargets.problem(mounter, dir.resolve("pods/p/mount"), Kind.DIRECTORY)).isEmpty();
    assertThat(MountTargets.problem(mounter, Files.createDirectory(dir.resolve("d")), Kind.DIRECTORY)).isEmpty();
    assertThat(MountTargets.problem(mounter, Files.createFile(dir.resolve("f")), Kind.FILE)).isEmpty();
  }

  @Test
  void theRootASymbolicLinkAndTheWrongKindOfFileAreRefused() throws IOException {
    Path file = Files.writeString(dir.resolve("file"), "x");
    Path directory = Files.createDirectory(dir.resolve("directory"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), directory);

    assertThat(MountTargets.problem(mounter, Path.of("/"), Kind.DIRECTORY)).contains("is the root directory");
    assertThat(MountTargets.problem(mounter, link, Kind.DIRECTORY)).hasValueSatisfying(p -> assertThat(p)
        .startsWith("is a symbolic link (to " + directory + ")"));
    assertThat(MountTargets.problem(mounter, file, Kind.DIRECTORY)).hasValueSatisfying(p -> assertThat(p)
        .startsWith("is a regular file"));
    assertThat(MountTargets.problem(mounter, directory, Kind.FILE)).hasValueSatisfying(p -> assertThat(p)
        .startsWith("is a directory"));
  }

  @Test
  void aPathInsideAKernelFileSystemIsRefused() throws IOException {
    Path proc = Files.createDirectories(dir.resolve("proc"));
    Path dev = Files.createDirectories(dir.resolve("dev"));
    Files.writeString(mountInfo, "28 27 0:22 / " + proc + " rw - proc proc rw\n"
        + "29 27 0:5 / " + dev + " rw - devtmpfs udev rw\n", java.nio.file.StandardOpenOption.APPEND);

    assertThat(MountTargets.problem(mounter, proc.resolve("sys/kernel/x"), Kind.DIRECTORY))
        .hasValueSatisfying(p -> assertThat(p).contains("a proc file system of the kernel"));
    assertThat(MountTargets.problem(mounter, dev.resolve("new"), Kind.FILE))
        .hasValueSatisfying(p -> assertThat(p).contains("devtmpfs"));
    assertThat(MountTargets.problem(mounter, dir.resolve("procfs-lookalike"), Kind.DIRECTORY)).isEmpty();
  }
}
