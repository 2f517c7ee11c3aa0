package io.awscsi.core.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The host tools against real loop devices, real mkfs and real mounts (needs root). */
@Tag("integration")
class HostToolsIntegrationTest {

  private static final long MIB = 1024 * 1024;
  /** mkfs.xfs 5.19+ refuses file systems smaller than 300 MiB. */
  private static final long XFS_MINIMUM = 320 * MIB;

  private ScratchDisks disks;
  private CommandRunner runner;
  private LinuxMounter mounter;
  private Formatter formatter;
  private FsStats stats;
  private FsResizer resizer;
  private LoopDevices loops;

  @BeforeEach
  void setUp() {
    disks = new ScratchDisks();
    runner = disks.runner();
    mounter = LinuxMounter.create(runner);
    formatter = new Formatter(runner);
    stats = new FsStats(runner);
    resizer = new FsResizer(runner, stats);
    loops = new LoopDevices(runner);
  }

  @AfterEach
  void tearDown() {
    disks.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"ext3", "ext4", "xfs"})
  void formatsANewDeviceOnceAndThenRefuses(String fsType) {
    var disk = disks.newDisk("new", XFS_MINIMUM);

    assertThat(formatter.probe(disk.device())).isEqualTo(new DeviceContent.Unformatted());
    formatter.format(disk.device(), fsType, MkfsOptions.defaults());

    assertThat(formatter.probe(disk.device())).isEqualTo(new DeviceContent.FileSystem(fsType));
    assertThatThrownBy(() -> formatter.format(disk.device(), fsType, MkfsOptions.defaults()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("it already holds a " + fsType + " file system");
  }

  @Test
  void aPartitionTableIsReportedAndNeverFormatted() throws IOException {
    var disk = disks.newDisk("partitioned", 16 * MIB);
    writeDosPartitionTable(disk.file());

    assertThat(formatter.probe(disk.device())).isEqualTo(new DeviceContent.PartitionTable("dos"));
    assertThatThrownBy(() -> formatter.format(disk.device(), "ext4", MkfsOptions.defaults()))
        .hasMessageContaining("a dos partition table");
  }

  @Test
  void mkfsOptionsReachTheFileSystem() {
    var disk = disks.newDisk("tuned", 64 * MIB);

    formatter.format(disk.device(), "ext4", new MkfsOptions(1024, 256, null, 5000L, false, null, false, false));

    var header = runner.run(Command.of(HostTool.DUMPE2FS, "-h", disk.device().toString())).stdout();
    assertThat(header).containsPattern("(?m)^Block size:\\s+1024$").containsPattern("(?m)^Inode size:\\s+256$");
    assertThat(header).containsPattern("(?m)^Reserved block count:\\s+0$");
  }

  @Test
  void ext4FeaturesFromTwoDashOOptionsAreBothTurnedOn() {
    var disk = disks.newDisk("features", 64 * MIB);

    formatter.format(disk.device(), "ext4", new MkfsOptions(null, null, null, null, true, 16384, true, false));

    var header = runner.run(Command.of(HostTool.DUMPE2FS, "-h", disk.device().toString())).stdout();
    assertThat(header).containsPattern("(?m)^Filesystem features:.*\\bencrypt\\b")
        .containsPattern("(?m)^Filesystem features:.*\\bbigalloc\\b")
        .containsPattern("(?m)^Cluster size:\\s+16384$");
  }

  @Test
  void legacyXfsTurnsOffTheNewFeaturesAndStillMounts() {
    var disk = disks.newDisk("legacy", XFS_MINIMUM);
    var target = disks.newDirectory("legacy-mount");

    formatter.format(disk.device(), "xfs", MkfsOptions.defaults().withXfsLegacyFormat(true));
    mounter.mount(disk.device().toString(), target, "xfs", List.of("nouuid"));

    var info = runner.run(Command.of(HostTool.XFS_INFO, target.toString())).stdout();
    assertThat(info).contains("reflink=0").contains("bigtime=0").contains("inobtcount=0");
  }

  @Test
  void mountsFindsAndUnmountsIdempotently() throws IOException {
    var disk = disks.newDisk("plain", 64 * MIB);
    var target = disks.newDirectory("mount point with spaces");
    formatter.format(disk.device(), "ext4", MkfsOptions.defaults());

    mounter.mount(disk.device().toString(), target, "ext4", List.of("noatime"));

    var mount = mounter.findMount(target).orElseThrow();
    assertThat(mount.source()).isEqualTo(disk.device().toString());
    assertThat(mount.fsType()).isEqualTo("ext4");
    assertThat(mount.mountOptions()).contains("noatime");
    assertThat(mounter.inspect(target)).isInstanceOf(MountState.Mounted.class);
    Files.writeString(target.resolve("data.txt"), "kept");

    mounter.unmount(target);
    mounter.unmount(target);

    assertThat(mounter.inspect(target)).isInstanceOf(MountState.NotMounted.class);
    assertThat(target.resolve("data.txt")).doesNotExist();
  }

  @Test
  void aReadOnlyBindRefusesWritesWhileTheSourceStaysWritable() throws IOException {
    var disk = disks.newDisk("shared", 64 * MIB);
    var staging = disks.newDirectory("staging");
    var published = disks.newDirectory("published");
    formatter.format(disk.device(), "ext4", MkfsOptions.defaults());
    mounter.mount(disk.device().toString(), staging, "ext4", List.of());
    Files.writeString(staging.resolve("seen.txt"), "through the bind");

    mounter.bindMount(staging, published, true, List.of());

    assertThat(published.resolve("seen.txt")).hasContent("through the bind");
    assertThat(mounter.findMount(published).orElseThrow().readOnly()).isTrue();
    assertThatThrownBy(() -> Files.writeString(published.resolve("new.txt"), "x"))
        .isInstanceOf(FileSystemException.class).hasMessageContaining("Read-only file system");
    Files.writeString(staging.resolve("still-writable.txt"), "yes");
  }

  @Test
  void aBlockDeviceCanBeBindMountedOntoAFile() throws IOException {
    var disk = disks.newDisk("raw", 16 * MIB);
    var target = Files.createFile(disks.newDirectory("block").resolve("device"));

    mounter.bindMount(disk.device(), target, false, List.of());

    assertThat(mounter.isMountPoint(target)).isTrue();
    assertThat(stats.deviceSize(target)).isEqualTo(16 * MIB);
    mounter.unmount(target);
    assertThat(mounter.isMountPoint(target)).isFalse();
  }

  @Test
  void aMountWhoseDaemonIsGoneIsCorruptedAndCanBeUnmounted() throws Exception {
    var target = disks.newDirectory("dead-fuse");
    mountDeadFuse(target);

    var state = mounter.inspect(target);

    assertThat(state).isInstanceOfSatisfying(MountState.Corrupted.class,
        corrupted -> assertThat(corrupted.reason()).contains("Transport endpoint is not connected"));
    assertThat(mounter.isMountPoint(target)).isTrue();
    mounter.unmount(target);
    assertThat(mounter.inspect(target)).isInstanceOf(MountState.NotMounted.class);
  }

  @Test
  void forceUnmountDetachesACorruptedMount() throws Exception {
    var target = disks.newDirectory("dead-fuse-forced");
    mountDeadFuse(target);

    mounter.forceUnmount(target, Duration.ofSeconds(10));

    assertThat(mounter.inspect(target)).isInstanceOf(MountState.NotMounted.class);
  }

  @Test
  void reportsUsageOfAMountedFileSystem() throws IOException {
    var disk = disks.newDisk("usage", 64 * MIB);
    var target = disks.newDirectory("usage-mount");
    formatter.format(disk.device(), "ext4", MkfsOptions.defaults());
    mounter.mount(disk.device().toString(), target, "ext4", List.of());
    var before = stats.usage(target);

    Files.write(target.resolve("blob"), new byte[8 * (int) MIB]);
    for (int i = 0; i < 10; i++) {
      Files.createFile(target.resolve("file-" + i));
    }
    runner.run(Command.of(HostTool.MOUNT, "-o", "remount", target.toString())); // flushes the counters
    var after = stats.usage(target);

    assertThat(after.totalBytes()).isEqualTo(before.totalBytes()).isBetween(50 * MIB, 64 * MIB);
    assertThat(after.usedBytes() - before.usedBytes()).isBetween(8 * MIB, 9 * MIB);
    assertThat(after.availableBytes()).isLessThan(before.availableBytes());
    assertThat(after.usedInodes() - before.usedInodes()).isEqualTo(11);
    assertThat(after.totalInodes()).isEqualTo(after.usedInodes() + after.freeInodes());
  }

  @Test
  void loopDevicesAreFoundByBackingFileAndFollowItsSize() {
    var disk = disks.newDisk("growing", 16 * MIB);

    assertThat(loops.find(disk.file())).contains(disk.device());
    disks.grow(disk, 48 * MIB);
    assertThat(stats.deviceSize(disk.device())).isEqualTo(48 * MIB);
    assertThat(stats.deviceSizeFromBlockdev(disk.device())).isEqualTo(48 * MIB);
    var withoutSysfs = new FsStats(runner, disks.root().resolve("no-sysfs"));
    assertThat(withoutSysfs.deviceSize(disk.device())).as("falls back to blockdev").isEqualTo(48 * MIB);

    loops.detach(disk.device());
    assertThat(loops.find(disk.file())).isEmpty();
  }

  @Test
  void xfsGrowsOnlineToTheNewDeviceSize() {
    var disk = disks.newDisk("xfs-grow", XFS_MINIMUM);
    var target = disks.newDirectory("xfs-grow-mount");
    formatter.format(disk.device(), "xfs", MkfsOptions.defaults());
    mounter.mount(disk.device().toString(), target, "xfs", List.of("nouuid"));
    assertThat(resizer.needsResize(disk.device(), target, "xfs")).isFalse();

    disks.grow(disk, XFS_MINIMUM + 128 * MIB);
    assertThat(resizer.needsResize(disk.device(), target, "xfs")).isTrue();
    resizer.resizeOnline(disk.device(), target, "xfs");

    assertThat(resizer.needsResize(disk.device(), target, "xfs")).isFalse();
    assertThat(resizer.fileSystemSize(disk.device(), target, "xfs").bytes()).isEqualTo(XFS_MINIMUM + 128 * MIB);
  }

  @Test
  void ext4GrowsOfflineAfterACheck() throws IOException {
    var disk = disks.newDisk("ext4-offline", 64 * MIB);
    var target = disks.newDirectory("ext4-offline-mount");
    formatter.format(disk.device(), "ext4", MkfsOptions.defaults());
    mounter.mount(disk.device().toString(), target, "ext4", List.of());
    Files.writeString(target.resolve("before.txt"), "survives the resize");
    mounter.unmount(target);

    disks.grow(disk, 96 * MIB);
    assertThat(resizer.needsResize(disk.device(), null, "ext4")).isTrue();
    resizer.resizeOffline(disk.device(), "ext4");

    assertThat(resizer.needsResize(disk.device(), null, "ext4")).isFalse();
    mounter.mount(disk.device().toString(), target, "ext4", List.of());
    assertThat(target.resolve("before.txt")).hasContent("survives the resize");
  }

  @Test
  void ext4GrowsOnlineWhereTheKernelAllowsIt() {
    var disk = disks.newDisk("ext4-online", 64 * MIB);
    var target = disks.newDirectory("ext4-online-mount");
    formatter.format(disk.device(), "ext4", MkfsOptions.defaults());
    mounter.mount(disk.device().toString(), target, "ext4", List.of());
    disks.grow(disk, 96 * MIB);

    try {
      resizer.resizeOnline(disk.device(), target, "ext4");
    } catch (OnlineResizeNotPermittedException e) {
      assertThat(resizer.needsResize(disk.device(), target, "ext4")).as("refused means unchanged").isTrue();
      Assumptions.abort("online ext4 resize is not permitted on this machine (EPERM, no CAP_SYS_RESOURCE): "
          + e.getMessage());
    }
    assertThat(resizer.needsResize(disk.device(), target, "ext4")).isFalse();
  }

  /**
   * Mounts a FUSE file system whose daemon is gone at once: mount(8) gets {@code /dev/fuse} as its standard input
   * (fd 0), and when it exits the last reference to the connection closes, so every access fails with ENOTCONN, as
   * after a crashed FUSE daemon or lost server.
   */
  private static void mountDeadFuse(Path target) throws IOException, InterruptedException {
    var mount = new ProcessBuilder("mount", "-t", "fuse", "-o", "fd=0,rootmode=40000,user_id=0,group_id=0",
        "scratch-dead-fuse", target.toString())
        .redirectInput(new File("/dev/fuse")).redirectErrorStream(true).start();
    assertThat(mount.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(mount.exitValue()).as(new String(mount.getInputStream().readAllBytes())).isZero();
  }

  /** An MBR with one Linux partition (type 0x83) from sector 2048, which blkid reports as PTTYPE=dos. */
  private static void writeDosPartitionTable(Path file) throws IOException {
    var sector = new byte[512];
    int entry = 446;
    sector[entry + 4] = (byte) 0x83;
    writeLittleEndian(sector, entry + 8, 2048);
    writeLittleEndian(sector, entry + 12, 8192);
    sector[510] = 0x55;
    sector[511] = (byte) 0xAA;
    try (var raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.write(sector);
    }
  }

  private static void writeLittleEndian(byte[] bytes, int offset, int value) {
    for (int i = 0; i < 4; i++) {
      bytes[offset + i] = (byte) (value >>> (8 * i));
    }
  }
}
