package io.awscsi.core.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real runner against small shell scripts installed under a tool's name in a private search path, so exit codes,
 * output, timeouts and process trees are real without needing root or the real tools.
 */
class ProcessCommandRunnerTest {

  @TempDir Path bin;

  private ProcessCommandRunner runnerWith(HostTool tool, String script) throws IOException {
    var file = bin.resolve(tool.executable());
    Files.writeString(file, "#!/bin/sh\n" + script + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    return new ProcessCommandRunner(List.of(bin));
  }

  @Test
  void passesArgumentsVerbatimAndCapturesBothStreams() throws IOException {
    var runner = runnerWith(HostTool.BLKID, """
        for a in "$@"; do echo "arg:$a"; done
        echo "to stderr" >&2
        echo "locale:$LC_ALL"
        """);

    var result = runner.run(Command.of(HostTool.BLKID, "-o", "two words", "$(touch /tmp/injected)", "a;b"));

    assertThat(result.stdout().lines()).containsExactly(
        "arg:-o", "arg:two words", "arg:$(touch /tmp/injected)", "arg:a;b", "locale:C");
    assertThat(result.stderr()).isEqualTo("to stderr\n");
    assertThat(result.exitCode()).isZero();
  }

  @Test
  void aNonZeroExitExplainsItselfInOneLine() throws IOException {
    var runner = runnerWith(HostTool.MOUNT, """
        echo "mount: /target: wrong fs type, bad option, bad superblock on /dev/loop9." >&2
        echo "       dmesg(1) may have more information after failed mount system call." >&2
        exit 32
        """);

    assertThatThrownBy(() -> runner.run(Command.of(HostTool.MOUNT, "-t", "ext4", "/dev/loop9", "/my target")))
        .isInstanceOfSatisfying(CommandException.Failed.class, e -> assertThat(e.exitCode()).isEqualTo(32))
        .hasMessage("`mount -t ext4 /dev/loop9 '/my target'` exited with 32: mount: /target: wrong fs type, bad "
            + "option, bad superblock on /dev/loop9. | dmesg(1) may have more information after failed mount system "
            + "call.");
  }

  @Test
  void aFailureWithoutStderrQuotesStdout() throws IOException {
    var runner = runnerWith(HostTool.E2FSCK, "echo 'UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.'; exit 4");

    assertThatThrownBy(() -> runner.run(Command.of(HostTool.E2FSCK, "-f", "-p", "/dev/x").acceptingExitCodes(1)))
        .hasMessage("`e2fsck -f -p /dev/x` exited with 4: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.");
  }

  @Test
  void acceptedExitCodesAreReturnedNotThrown() throws IOException {
    var runner = runnerWith(HostTool.BLKID, "exit 2");

    var result = runner.run(Command.of(HostTool.BLKID, "-p", "/dev/x").acceptingExitCodes(2));

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.succeeded()).isFalse();
  }

  @Test
  void aTimeoutKillsTheProgramAndItsChildren() throws Exception {
    var childPidFile = bin.resolve("child.pid");
    var runner = runnerWith(HostTool.MOUNT_EFS, """
        sleep 60 &
        echo $! > %s
        echo "waiting for the server" >&2
        wait
        """.formatted(childPidFile));

    long started = System.nanoTime();
    assertThatThrownBy(() -> runner.run(Command.of(HostTool.MOUNT_EFS, "fs-1:/", "/mnt")
        .withTimeout(Duration.ofMillis(700))))
        .isInstanceOf(CommandException.TimedOut.class)
        .hasMessageContaining("`mount.efs fs-1:/ /mnt` did not finish within PT0.7S and was killed")
        .hasMessageContaining("waiting for the server");

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    var child = ProcessHandle.of(Long.parseLong(Files.readString(childPidFile).strip()));
    // SIGKILL is delivered asynchronously and init reaps the orphan a moment later; a live child would stay 60 s.
    child.ifPresent(handle -> handle.onExit().orTimeout(5, java.util.concurrent.TimeUnit.SECONDS).join());
    assertThat(child.map(ProcessHandle::isAlive).orElse(false)).as("the child sleep is killed too").isFalse();
  }

  @Test
  void aMissingToolNamesThePackageThatProvidesIt() {
    var runner = new ProcessCommandRunner(List.of(bin));

    assertThatThrownBy(() -> runner.run(Command.of(HostTool.NVME, "id-ctrl", "/dev/nvme0")))
        .isInstanceOf(CommandException.NotStarted.class)
        .hasMessageContaining("nvme is not installed")
        .hasMessageContaining("install the package nvme-cli");
  }

  @Test
  void largeOutputDoesNotBlockTheProgram() throws IOException {
    // 1 MiB on each stream: more than a pipe buffer, so this hangs unless both are drained while it runs.
    var runner = runnerWith(HostTool.DUMPE2FS,
        "head -c 1048576 /dev/zero | tr '\\0' a; head -c 1048576 /dev/zero | tr '\\0' b >&2");

    var result = runner.run(Command.of(HostTool.DUMPE2FS, "-h", "/dev/x").withTimeout(Duration.ofSeconds(20)));

    assertThat(result.stdout()).hasSize(1 << 20);
    assertThat(result.stderr()).hasSize(1 << 20);
  }
}
