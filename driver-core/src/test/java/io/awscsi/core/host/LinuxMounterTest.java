package io.awscsi.core.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.host.RecordingCommandRunner.Reply;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Command sequences of the mounter, with a recording runner and a mount table written by the test. */
class LinuxMounterTest {

  @TempDir Path dir;
  private Path mountInfo;
  private Path target;
  private RecordingCommandRunner runner;
  private LinuxMounter mounter;

  @BeforeEach
  void setUp() throws IOException {
    mountInfo = dir.resolve("mountinfo");
    target = Files.createDirectory(dir.resolve("target")).toRealPath();
    Files.writeString(mountInfo, "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n");
    runner = new RecordingCommandRunner();
    mounter = new LinuxMounter(runner, mountInfo, Duration.ofSeconds(5));
  }

  private void mountedAt(Path path, String source) throws IOException {
    Files.writeString(mountInfo, "90 27 7:3 / " + path.toString().replace(" ", "\\040")
        + " rw,relatime shared:40 - ext4 " + source + " rw\n", java.nio.file.StandardOpenOption.APPEND);
  }

  @Test
  void mountPassesTypeOptionsSourceAndTargetAsSeparateArguments() {
    mounter.mount("/dev/loop3", target, "xfs", List.of("nouuid", "noatime"));

    assertThat(runner.commands()).singleElement().satisfies(command -> assertThat(command.arguments())
        .containsExactly("-t", "xfs", "-o", "nouuid,noatime", "/dev/loop3", target.toString()));
  }

  @Test
  void mountWithoutOptionsHasNoDashO() {
    mounter.mount("/dev/loop3", target, "ext4", List.of());

    assertThat(runner.commandLines()).containsExactly("mount -t ext4 /dev/loop3 " + target);
  }

  @Test
  void aReadOnlyBindIsABindThenARemount() {
    mounter.bindMount(Path.of("/staging"), target, true, List.of("noatime"));

    assertThat(runner.commandLines()).containsExactly(
        "mount -o bind /staging " + target,
        "mount -o remount,bind,noatime,ro " + target);
  }

  @Test
  void readOnlyGoesLastSoNoFlagCanMakeTheViewWritable() {
    mounter.bindMount(Path.of("/staging"), target, false, List.of("ro", "nosuid"));

    assertThat(runner.commandLines()).containsExactly(
        "mount -o bind /staging " + target,
        "mount -o remount,bind,nosuid,ro " + target);
  }

  @Test
  void aReadOnlyBindWithRwIsRefusedBeforeAnythingRuns() {
    assertThatThrownBy(() -> mounter.bindMount(Path.of("/staging"), target, true, List.of("rw")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(runner.commands()).isEmpty();
  }

  @Test
  void aBindTheKernelStillShowsWritableIsUndone() throws IOException {
    runner.on(command -> command.arguments().size() > 1 && command.arguments().get(1).startsWith("remount"),
        command -> {
          try {
            mountedAt(target, "/dev/loop3"); // the remount "succeeded" but the mount is read-write
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
          return Reply.ok("");
        });

    assertThatThrownBy(() -> mounter.bindMount(Path.of("/staging"), target, true, List.of()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("read-write after the read-only remount");
    assertThat(runner.commandLines()).last().isEqualTo("umount " + target);
  }

  @Test
  void aPlainBindIsOneCommand() {
    mounter.bindMount(Path.of("/dev/loop3"), target, false, List.of());

    assertThat(runner.commandLines()).containsExactly("mount -o bind /dev/loop3 " + target);
  }

  @Test
  void aFailedRemountUndoesTheBindSoNoWritableViewStays() {
    runner.on(command -> command.arguments().getFirst().equals("-o")
        && command.arguments().get(1).startsWith("remount"), command -> Reply.exit(32, "mount: permission denied"));

    assertThatThrownBy(() -> mounter.bindMount(Path.of("/staging"), target, true, List.of()))
        .isInstanceOf(CommandException.Failed.class);
    assertThat(runner.commandLines()).containsExactly(
        "mount -o bind /staging " + target,
        "mount -o remount,bind,ro " + target,
        "umount " + target);
  }

  @Test
  void unmountingWhatIsNotMountedRunsNothing() {
    mounter.unmount(target);
    mounter.unmount(dir.resolve("missing"));

    assertThat(runner.commands()).isEmpty();
  }

  @Test
  void unmountRemovesStackedMountsUntilNoneIsLeft() throws IOException {
    mountedAt(target, "/dev/loop3");
    mountedAt(target, "/dev/loop3");
    runner.on(command -> command.tool() == HostTool.UMOUNT, command -> {
      removeLastLine();
      return Reply.ok("");
    });

    mounter.unmount(target);

    assertThat(runner.commandLines()).containsExactly("umount " + target, "umount " + target);
    assertThat(mounter.isMountPoint(target)).isFalse();
  }

  @Test
  void findMountReturnsTheTopmostMountAndDecodesEscapes() throws IOException {
    var spaced = Files.createDirectory(dir.resolve("with space")).toRealPath();
    mountedAt(spaced, "/dev/loop1");
    mountedAt(spaced, "/dev/loop2");

    assertThat(mounter.findMount(spaced)).get().extracting(MountInfo::source).isEqualTo("/dev/loop2");
    assertThat(mounter.inspect(spaced)).isInstanceOf(MountState.Mounted.class);
    assertThat(mounter.inspect(target)).isInstanceOf(MountState.NotMounted.class);
    assertThat(mounter.inspect(dir.resolve("nothing"))).isInstanceOf(MountState.Absent.class);
  }

  @Test
  void aDeletedMountPointThatIsStillMountedIsCorrupted() throws IOException {
    var gone = dir.resolve("gone");
    mountedAt(gone, "/dev/loop4");

    assertThat(mounter.inspect(gone)).isInstanceOf(MountState.Corrupted.class);
  }

  @Test
  void forceUnmountFallsBackToLazyWhenTheForcedOneFails() throws IOException {
    mountedAt(target, "fs-1:/");
    runner.on(command -> command.arguments().contains("-f"), command -> Reply.exit(16, "umount: target is busy"));

    mounter.forceUnmount(target, Duration.ofSeconds(3));

    assertThat(runner.commandLines()).containsExactly("umount -f " + target, "umount -l " + target);
    assertThat(runner.commands()).allSatisfy(command -> assertThat(command.timeout()).isEqualTo(Duration.ofSeconds(3)));
  }

  private void removeLastLine() {
    try {
      var lines = Files.readAllLines(mountInfo);
      Files.write(mountInfo, lines.subList(0, lines.size() - 1));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
