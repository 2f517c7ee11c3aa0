package io.awscsi.ebs.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.DeviceAccess;
import io.awscsi.core.host.Formatter;
import io.awscsi.core.host.FsResizer;
import io.awscsi.core.host.FsStats;
import io.awscsi.core.host.HostTool;
import io.awscsi.core.host.HostTools;
import io.awscsi.core.host.LinuxMounter;
import io.awscsi.core.host.LoopDevices;
import io.awscsi.core.host.RecordingCommandRunner;
import io.awscsi.core.host.RecordingCommandRunner.Reply;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.StageRequest;
import io.awscsi.core.provider.VolumeCapability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stager's decisions and the exact host commands they lead to, with a recording runner, a fake device tree and a
 * mount table written by the test: no root, no device is touched.
 */
class EbsVolumeStagerTest {

  private static final String VOLUME = "vol-0aaaaaaaaaaaaaaaa";
  private static final long GIB = 1024L * 1024 * 1024;

  @TempDir Path root;
  private Path device;
  private Path staging;
  private Path mountInfo;
  private RecordingCommandRunner runner;
  private EbsVolumeStager stager;

  @BeforeEach
  void setUp() throws IOException {
    var dev = Files.createDirectories(root.resolve("dev"));
    var sysBlock = Files.createDirectories(root.resolve("sys/block"));
    device = Files.createFile(dev.resolve("nvme1n1")).toRealPath();
    Files.createDirectories(sysBlock.resolve("nvme1n1/device"));
    Files.writeString(sysBlock.resolve("nvme1n1/device/serial"), "vol0aaaaaaaaaaaaaaaa");
    staging = root.resolve("staging").toAbsolutePath();
    mountInfo = root.resolve("mountinfo");
    Files.writeString(mountInfo, "1 0 254:0 / / rw - ext4 /dev/vda rw\n");
    runner = new RecordingCommandRunner()
        .on(HostTool.BLOCKDEV, Reply.ok(GIB + "\n"))
        .on(HostTool.DUMPE2FS, Reply.ok("Block count:              262144\nBlock size:               4096\n"))
        .on(HostTool.XFS_INFO, Reply.ok("data     =                       bsize=4096   blocks=262144, imaxpct=25\n"));
    var stats = new FsStats(runner, root.resolve("no-sysfs"));
    var host = new HostTools(runner, new LinuxMounter(runner, mountInfo, Duration.ofSeconds(5)),
        new Formatter(runner), new FsResizer(runner, stats), stats, new LoopDevices(runner), new DeviceAccess(runner));
    var locator = new VolumeDeviceLocator(dev.resolve("disk/by-id"), sysBlock, dev, new NvmeSerialReader(sysBlock),
        Duration.ZERO, Duration.ofMillis(10));
    stager = new EbsVolumeStager(locator, host, false);
  }

  private void deviceHolds(String blkidExport) {
    runner.on(HostTool.BLKID, blkidExport.isEmpty() ? Reply.exit(2, "") : Reply.ok(blkidExport));
  }

  private void stage(String fsType, String... flags) {
    stager.stage(new StageRequest(VOLUME, Map.of(), staging, new VolumeCapability(AccessMode.SINGLE_NODE_WRITER,
        new AccessType.Mount(fsType, List.of(flags), "")), Map.of(), Map.of()));
  }

  private static void assertError(Runnable call, Class<? extends DriverError> type, String message) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.error()).isInstanceOf(type))
        .hasMessageContaining(message);
  }

  @Test
  void anEmptyDeviceIsFormattedThenMounted() {
    deviceHolds("");

    stage("", "noatime");

    assertThat(runner.commandLines()).containsExactly(
        "blkid -p -s TYPE -s PTTYPE -o export " + device,
        "blkid -p -s TYPE -s PTTYPE -o export " + device,
        "mkfs.ext4 -F -m0 -E lazy_itable_init=1,nodiscard " + device,
        "mount -t ext4 -o noatime " + device + " " + staging);
    assertThat(staging).isDirectory();
  }

  @Test
  void anExistingFileSystemOfTheRightSizeIsMountedAsItIs() {
    deviceHolds("DEVNAME=/dev/nvme1n1\nTYPE=ext4\n");

    stage("ext4");

    assertThat(runner.commandLines()).containsExactly(
        "blkid -p -s TYPE -s PTTYPE -o export " + device,
        "blockdev --getsize64 " + device,
        "dumpe2fs -h " + device,
        "mount -t ext4 " + device + " " + staging);
  }

  @Test
  void anExtFileSystemSmallerThanItsDeviceIsGrownBeforeMounting() {
    deviceHolds("DEVNAME=/dev/nvme1n1\nTYPE=ext4\n");
    runner.on(HostTool.BLOCKDEV, Reply.ok(2 * GIB + "\n"));

    stage("ext4");

    assertThat(runner.commandLines()).containsSubsequence(
        "e2fsck -f -p " + device,
        "resize2fs " + device,
        "mount -t ext4 " + device + " " + staging);
    assertThat(runner.commandLines(HostTool.MKFS_EXT4)).isEmpty();
  }

  @Test
  void xfsIsMountedWithNouuidAndGrownOnlineAfterMounting() {
    deviceHolds("");
    runner.on(HostTool.BLOCKDEV, Reply.ok(2 * GIB + "\n"));
    runner.on(command -> command.tool() == HostTool.MKFS_XFS && command.arguments().equals(List.of("-V")),
        command -> Reply.ok("mkfs.xfs version 6.1.0"));

    stage("xfs", "noatime");

    assertThat(runner.commandLines()).containsSubsequence(
        "mkfs.xfs -K " + device,
        "mount -t xfs -o noatime,nouuid " + device + " " + staging,
        "xfs_info " + staging,
        "xfs_growfs -d " + staging);
  }

  @Test
  void anExt3FileSystemAskedForAsExt4IsMountedAsExt3() {
    deviceHolds("DEVNAME=/dev/nvme1n1\nTYPE=ext3\n");

    stage("ext4");

    assertThat(runner.commandLines().getLast()).isEqualTo("mount -t ext3 " + device + " " + staging);
  }

  @Test
  void aFileSystemOfAnotherFamilyIsNeitherFormattedNorMounted() {
    deviceHolds("DEVNAME=/dev/nvme1n1\nTYPE=xfs\n");

    assertError(() -> stage("ext4"), DriverError.FailedPrecondition.class,
        "already holds a xfs file system but ext4 was requested; it is not reformatted");
    assertThat(runner.commandLines()).containsExactly("blkid -p -s TYPE -s PTTYPE -o export " + device);
  }

  @Test
  void aPartitionedDeviceIsNeitherFormattedNorMounted() {
    deviceHolds("DEVNAME=/dev/nvme1n1\nPTTYPE=gpt\n");

    assertError(() -> stage("ext4"), DriverError.FailedPrecondition.class, "holds a gpt partition table");
    assertThat(runner.commandLines()).containsExactly("blkid -p -s TYPE -s PTTYPE -o export " + device);
  }

  @Test
  void theSameDeviceAlreadyMountedAtTheStagingPathIsSuccessWithoutCommands() throws IOException {
    Files.createDirectories(staging);
    // A regular file stands in for the device here, so its device number is 0:0.
    Files.writeString(mountInfo, "90 1 0:0 / " + staging.toRealPath() + " rw - ext4 " + device + " rw\n",
        java.nio.file.StandardOpenOption.APPEND);

    stage("ext4");

    assertThat(runner.commands()).isEmpty();
  }

  @Test
  void anotherDeviceMountedAtTheStagingPathIsAConflict() throws IOException {
    Files.createDirectories(staging);
    Files.writeString(mountInfo, "90 1 259:7 / " + staging.toRealPath() + " rw - ext4 /dev/nvme7n1 rw\n",
        java.nio.file.StandardOpenOption.APPEND);

    assertError(() -> stage("ext4"), DriverError.AlreadyExists.class,
        "already has /dev/nvme7n1 mounted, not volume " + VOLUME);
    assertThat(runner.commands()).isEmpty();
  }

  @Test
  void aFailedMountIsInternalAndQuotesTheCommand() {
    deviceHolds("DEVNAME=/dev/nvme1n1\nTYPE=ext4\n");
    runner.on(HostTool.MOUNT, Reply.exit(32, "mount: " + staging + ": wrong fs type, bad superblock"));

    assertError(() -> stage("ext4"), DriverError.Internal.class,
        "staging volume " + VOLUME + " (device " + device + ") at " + staging + " failed: `mount -t ext4 " + device
            + " " + staging + "` exited with 32: mount: " + staging + ": wrong fs type, bad superblock");
  }

  @Test
  void blockVolumesAreNotStaged() {
    stager.stage(new StageRequest(VOLUME, Map.of(), staging, VolumeCapability.block(AccessMode.SINGLE_NODE_WRITER),
        Map.of(), Map.of()));

    assertThat(runner.commands()).isEmpty();
    assertThat(staging).doesNotExist();
  }
}
