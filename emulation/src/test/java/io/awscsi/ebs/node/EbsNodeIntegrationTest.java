package io.awscsi.ebs.node;

import static io.awscsi.ebs.node.LocalEbsNode.block;
import static io.awscsi.ebs.node.LocalEbsNode.fileSystem;
import static io.awscsi.ebs.node.LocalEbsNode.newVolumeId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.Command;
import io.awscsi.core.host.DeviceContent;
import io.awscsi.core.host.HostTool;
import io.awscsi.core.host.MkfsOptions;
import io.awscsi.core.host.MountState;
import io.awscsi.core.provider.VolumeStats;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The EBS node provider on real loop devices, real mkfs and real mounts, through the local device backend. */
@Tag("integration")
class EbsNodeIntegrationTest {

  private static final long MIB = 1024 * 1024;
  /** mkfs.xfs refuses file systems below 300 MiB. */
  private static final long SIZE = 320 * MIB;

  private LocalEbsNode node;

  @BeforeEach
  void setUp() {
    node = new LocalEbsNode(false);
  }

  @AfterEach
  void tearDown() {
    node.close();
  }

  private static void assertError(Runnable call, Class<? extends DriverError> type, String message) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.error()).isInstanceOf(type))
        .hasMessageContaining(message);
  }

  private VolumeStats.FileSystem fileSystemStats(String volumeId, Path path) {
    return (VolumeStats.FileSystem) node.provider().stats().orElseThrow().stats(volumeId, path);
  }

  @ParameterizedTest
  @ValueSource(strings = {"ext4", "xfs", "ext3"})
  void stagesPublishesUnpublishesAndUnstagesAFileSystem(String fsType) throws IOException {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, SIZE);
    var capability = fileSystem(fsType, "noatime");

    node.stage(volumeId, context, capability, Map.of());
    node.publish(volumeId, context, capability, "pod-a", false);

    var target = node.targetPath(volumeId, "pod-a");
    Files.writeString(target.resolve("hello.txt"), "from the pod");
    assertThat(node.stagingPath(volumeId).resolve("hello.txt")).hasContent("from the pod");
    var staged = node.host().mounter().findMount(node.stagingPath(volumeId)).orElseThrow();
    assertThat(staged.fsType()).isEqualTo(fsType);
    assertThat(staged.mountOptions()).contains("noatime");
    if (fsType.equals("xfs")) {
      assertThat(staged.superOptions()).contains("nouuid");
    }
    var stats = fileSystemStats(volumeId, target);
    assertThat(stats.totalBytes()).isBetween(SIZE / 2, SIZE);
    assertThat(stats.usedInodes()).isPositive();

    node.unpublish(volumeId, "pod-a");
    assertThat(target).doesNotExist();
    node.unstage(volumeId);
    assertThat(node.host().mounter().isMountPoint(node.stagingPath(volumeId))).isFalse();
  }

  @Test
  void everyCallIsIdempotent() {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, SIZE);
    var capability = fileSystem("ext4");

    node.stage(volumeId, context, capability, Map.of());
    node.stage(volumeId, context, capability, Map.of());
    node.publish(volumeId, context, capability, "pod-a", false);
    node.publish(volumeId, context, capability, "pod-a", false);
    assertThat(node.host().mounter().mounts().stream()
        .filter(mount -> mount.mountPoint().startsWith(node.root()))).hasSize(2);

    node.unpublish(volumeId, "pod-a");
    node.unpublish(volumeId, "pod-a");
    node.unstage(volumeId);
    node.unstage(volumeId);
    assertThat(node.host().mounter().mounts().stream()
        .filter(mount -> mount.mountPoint().startsWith(node.root()))).isEmpty();
  }

  @Test
  void aStagingPathHoldingAnotherVolumeIsAConflict() {
    var first = newVolumeId();
    var second = newVolumeId();
    var firstContext = node.attach(first, SIZE);
    var secondContext = node.attach(second, SIZE);
    node.stage(first, firstContext, fileSystem("ext4"), Map.of());
    var request = new io.awscsi.core.provider.StageRequest(second, secondContext, node.stagingPath(first),
        fileSystem("ext4"), Map.of(), Map.of());

    assertError(() -> node.provider().stager().orElseThrow().stage(request), DriverError.AlreadyExists.class,
        "not volume " + second);
  }

  @Test
  void aPublishedTargetWithOtherArgumentsIsAConflict() {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, SIZE);
    node.stage(volumeId, context, fileSystem("ext4"), Map.of());
    node.publish(volumeId, context, fileSystem("ext4"), "pod-a", false);

    assertError(() -> node.publish(volumeId, context, fileSystem("ext4"), "pod-a", true),
        DriverError.AlreadyExists.class, "unpublish it first");
  }

  @Test
  void aReadOnlyPublishRefusesWrites() throws IOException {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, SIZE);
    node.stage(volumeId, context, fileSystem("xfs"), Map.of());
    Files.writeString(node.stagingPath(volumeId).resolve("seed.txt"), "seeded");

    node.publish(volumeId, context, fileSystem("xfs"), "reader", true);

    var target = node.targetPath(volumeId, "reader");
    assertThat(target.resolve("seed.txt")).hasContent("seeded");
    assertThatThrownBy(() -> Files.writeString(target.resolve("new.txt"), "x"))
        .isInstanceOf(FileSystemException.class).hasMessageContaining("Read-only file system");
  }

  @Test
  void blockVolumesSkipStagingAndAreBindMountedOntoAFile() throws IOException {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, 64 * MIB);

    node.stage(volumeId, context, block(), Map.of());
    assertThat(node.stagingPath(volumeId)).doesNotExist();
    node.publish(volumeId, context, block(), "pod-b", false);
    node.publish(volumeId, context, block(), "pod-b", false);

    var target = node.targetPath(volumeId, "pod-b");
    assertThat(Files.isRegularFile(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
    try (var raw = new RandomAccessFile(target.toFile(), "rw")) {
      raw.write("raw block data".getBytes());
    }
    var device = node.backend().device(volumeId).orElseThrow();
    try (var raw = new RandomAccessFile(device.toFile(), "r")) {
      var read = new byte[14];
      raw.readFully(read);
      assertThat(new String(read)).isEqualTo("raw block data");
    }
    assertThat(node.provider().stats().orElseThrow().stats(volumeId, target))
        .isEqualTo(new VolumeStats.Block(64 * MIB));
    assertThat(node.expand(volumeId, target, 64 * MIB)).isEqualTo(64 * MIB);

    node.unpublish(volumeId, "pod-b");
    node.unpublish(volumeId, "pod-b");
    assertThat(target).doesNotExist();
    assertThat(node.host().formatter().probe(device)).as("block publish never formats")
        .isEqualTo(new DeviceContent.Unformatted());
  }

  @Test
  void xfsIsExpandedOnline() {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, SIZE);
    node.stage(volumeId, context, fileSystem("xfs"), Map.of());
    node.publish(volumeId, context, fileSystem("xfs"), "pod-a", false);
    var target = node.targetPath(volumeId, "pod-a");
    var before = fileSystemStats(volumeId, target);

    node.backend().resized(volumeId, SIZE + 256 * MIB);
    long capacity = node.expand(volumeId, target, SIZE + 256 * MIB);

    assertThat(capacity).isEqualTo(SIZE + 256 * MIB);
    var after = fileSystemStats(volumeId, target);
    assertThat(after.totalBytes() - before.totalBytes()).isEqualTo(256 * MIB);
  }

  @Test
  void ext4IsExpandedOnlineWhereTheKernelAllowsIt() {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, 128 * MIB);
    node.stage(volumeId, context, fileSystem("ext4"), Map.of());
    node.publish(volumeId, context, fileSystem("ext4"), "pod-a", false);
    var target = node.targetPath(volumeId, "pod-a");
    var before = fileSystemStats(volumeId, target);
    node.backend().resized(volumeId, 256 * MIB);

    try {
      node.expand(volumeId, target, 256 * MIB);
    } catch (DriverException e) {
      assertThat(e.error()).isInstanceOf(DriverError.FailedPrecondition.class);
      assertThat(fileSystemStats(volumeId, target).totalBytes()).isEqualTo(before.totalBytes());
      Assumptions.abort("online ext4 resize is not permitted on this machine (EPERM, no CAP_SYS_RESOURCE): "
          + e.getMessage());
    }
    assertThat(fileSystemStats(volumeId, target).totalBytes()).isGreaterThan(before.totalBytes() + 100 * MIB);
  }

  @Test
  void anExt4VolumeEnlargedWhileDetachedIsGrownAtTheNextStage() throws IOException {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, 128 * MIB);
    node.stage(volumeId, context, fileSystem("ext4"), Map.of());
    Files.writeString(node.stagingPath(volumeId).resolve("kept.txt"), "kept across the resize");
    var before = fileSystemStats(volumeId, node.stagingPath(volumeId));
    node.unstage(volumeId);
    node.backend().detached(volumeId);

    node.backend().resized(volumeId, 256 * MIB);
    context = node.attach(volumeId, 256 * MIB);
    node.stage(volumeId, context, fileSystem("ext4"), Map.of());

    var after = fileSystemStats(volumeId, node.stagingPath(volumeId));
    assertThat(after.totalBytes() - before.totalBytes()).as("grown by 128 MiB less the new groups' metadata")
        .isBetween(100 * MIB, 128 * MIB);
    assertThat(node.stagingPath(volumeId).resolve("kept.txt")).hasContent("kept across the resize");
  }

  @Test
  void dataSurvivesUnstageDetachAttachAndStageWithoutReformatting() throws IOException {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, SIZE);
    node.stage(volumeId, context, fileSystem("ext4"), Map.of());
    node.publish(volumeId, context, fileSystem("ext4"), "writer", false);
    Files.writeString(node.targetPath(volumeId, "writer").resolve("precious.txt"), "do not lose me");
    var uuid = fileSystemUuid(volumeId);
    node.unpublish(volumeId, "writer");
    node.unstage(volumeId);
    node.backend().detached(volumeId);

    context = node.attach(volumeId, SIZE);
    node.stage(volumeId, context, fileSystem("ext4"), Map.of("blockSize", "1024"));
    node.publish(volumeId, context, fileSystem("ext4"), "reader", false);

    assertThat(node.targetPath(volumeId, "reader").resolve("precious.txt")).hasContent("do not lose me");
    assertThat(fileSystemUuid(volumeId)).as("the same file system, not a new one").isEqualTo(uuid);
  }

  @Test
  void aFileSystemOfAnotherTypeIsRefusedAndLeftIntact() throws IOException {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, SIZE);
    node.stage(volumeId, context, fileSystem("xfs"), Map.of());
    Files.writeString(node.stagingPath(volumeId).resolve("xfs.txt"), "xfs data");
    node.unstage(volumeId);

    assertError(() -> node.stage(volumeId, context, fileSystem("ext4"), Map.of()),
        DriverError.FailedPrecondition.class, "already holds a xfs file system but ext4 was requested");

    node.stage(volumeId, context, fileSystem("xfs"), Map.of());
    assertThat(node.stagingPath(volumeId).resolve("xfs.txt")).hasContent("xfs data");
  }

  /** A DOS partition table with partition 1 from 1 MiB to the end, as a disk made elsewhere may have. */
  private void partitionWholeDisk(Path device, long sizeBytes) throws Exception {
    var sector = new byte[512];
    int entry = 446;
    sector[entry + 4] = (byte) 0x83;
    long first = 2048;
    long count = sizeBytes / 512 - first;
    for (int i = 0; i < 4; i++) {
      sector[entry + 8 + i] = (byte) (first >>> (8 * i));
      sector[entry + 12 + i] = (byte) (count >>> (8 * i));
    }
    sector[510] = 0x55;
    sector[511] = (byte) 0xAA;
    try (var raw = new RandomAccessFile(device.toFile(), "rw")) {
      raw.write(sector);
    }
    // What the kernel does when a disk with a partition table is attached. This machine's kernel has no DOS partition
    // parser (CONFIG_MSDOS_PARTITION is off), so partx reads the table and adds the partition (BLKPG), as the
    // kernel's parser would; the loop device's partition scanning drops it again when the device is detached.
    var added = new ProcessBuilder("partx", "--add", device.toString()).redirectErrorStream(true).start();
    assertThat(added.waitFor(30, TimeUnit.SECONDS) && added.exitValue() == 0)
        .as("partx --add %s: %s", device, new String(added.getInputStream().readAllBytes())).isTrue();
  }

  @Test
  void thePartitionVolumeAttributeStagesAndPublishesThatPartitionNeverTheDisk() throws Exception {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, 64 * MIB);
    var disk = node.backend().device(volumeId).orElseThrow();
    partitionWholeDisk(disk, 64 * MIB);
    var partitionOne = Map.of("partition", "1");

    node.stage(volumeId, context, fileSystem("ext4"), partitionOne);
    node.publish(volumeId, context, fileSystem("ext4"), "pod-p", false, partitionOne);
    Files.writeString(node.targetPath(volumeId, "pod-p").resolve("on-partition.txt"), "partition data");

    var staged = node.host().mounter().findMount(node.stagingPath(volumeId)).orElseThrow();
    assertThat(staged.source()).isEqualTo(disk + "p1");
    assertThat(node.host().formatter().probe(disk)).as("the disk keeps its partition table")
        .isEqualTo(new DeviceContent.PartitionTable("dos"));
    assertThat(fileSystemStats(volumeId, node.targetPath(volumeId, "pod-p")).totalBytes())
        .isBetween(50 * MIB, 63 * MIB);

    node.unpublish(volumeId, "pod-p");
    node.unstage(volumeId);
    assertThat(node.host().mounter().inspect(node.stagingPath(volumeId)).isMountPoint()).isFalse();
    node.stage(volumeId, context, fileSystem("ext4"), partitionOne);
    assertThat(node.stagingPath(volumeId).resolve("on-partition.txt")).hasContent("partition data");
    node.unstage(volumeId);

    node.publish(volumeId, context, block(), "pod-b", false, partitionOne);
    var target = node.targetPath(volumeId, "pod-b");
    assertThat(node.provider().stats().orElseThrow().stats(volumeId, target))
        .isEqualTo(new VolumeStats.Block(64 * MIB - MIB));
    node.unpublish(volumeId, "pod-b");
    assertThat(target).doesNotExist();

    assertError(() -> node.stage(volumeId, context, fileSystem("ext4"), Map.of("partition", "2")),
        DriverError.FailedPrecondition.class, "has no partition 2");
    assertError(() -> node.stage(volumeId, context, fileSystem("ext4"), Map.of("partition", "p1")),
        DriverError.InvalidArgument.class, "volume_context.partition must be a partition number");
    // "0" is the whole disk (as upstream), which holds a partition table: never formatted over
    assertError(() -> node.stage(volumeId, context, fileSystem("ext4"), Map.of("partition", "0")),
        DriverError.FailedPrecondition.class, "partition table");
  }

  @Test
  void mkfsOptionsFromTheVolumeContextAreApplied() {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, 128 * MIB);

    node.stage(volumeId, context, fileSystem("ext4"),
        Map.of("blockSize", "1024", "inodeSize", "256", "numberOfInodes", "4096", "ext4encryptionsupport", "true"));

    var header = node.host().runner().run(Command.of(HostTool.DUMPE2FS, "-h",
        node.backend().device(volumeId).orElseThrow().toString())).stdout();
    assertThat(header).containsPattern("(?m)^Block size:\\s+1024$").containsPattern("(?m)^Inode size:\\s+256$");
    // the key as the controller writes it into the volume context (lower case, "true")
    assertThat(header).containsPattern("(?m)^Filesystem features:.*\\bencrypt\\b");
    assertThat(fileSystemStats(volumeId, node.stagingPath(volumeId)).totalInodes()).isBetween(4096L, 5120L);
  }

  @Test
  void smuggledMountOptionsAreRefusedBeforeAnythingIsMounted() {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, SIZE);

    assertError(() -> node.stage(volumeId, context, fileSystem("ext4", "noatime,bind"), Map.of()),
        DriverError.InvalidArgument.class, "\"bind\" is not allowed");
    assertThat(node.stagingPath(volumeId)).doesNotExist();
    assertThat(node.host().formatter().probe(node.backend().device(volumeId).orElseThrow()))
        .isEqualTo(new DeviceContent.Unformatted());
  }

  @Test
  void aCorruptedStagingMountIsUnmountedByUnstageAndReplacedByStage() throws Exception {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, SIZE);
    var staging = java.nio.file.Files.createDirectories(node.stagingPath(volumeId));
    mountDeadFuse(staging);
    assertThat(node.host().mounter().inspect(staging)).isInstanceOf(MountState.Corrupted.class);

    node.unstage(volumeId);
    assertThat(node.host().mounter().inspect(staging)).isInstanceOf(MountState.NotMounted.class);

    mountDeadFuse(staging);
    node.stage(volumeId, context, fileSystem("ext4"), Map.of());
    assertThat(node.host().mounter().findMount(staging).orElseThrow().fsType()).isEqualTo("ext4");
  }

  @Test
  void statsAndExpandOfAPathWithoutTheVolumeAreNotFound() {
    var volumeId = newVolumeId();
    var nowhere = node.root().resolve("not-published");

    assertError(() -> node.provider().stats().orElseThrow().stats(volumeId, nowhere), DriverError.NotFound.class,
        "is not published at volume_path " + nowhere);
    assertError(() -> node.expand(volumeId, nowhere, 0), DriverError.NotFound.class, "does not exist");
  }

  @Test
  void statsOfAPathHoldingAnotherVolumeAreNotFound() {
    var volumeId = newVolumeId();
    var context = node.attach(volumeId, SIZE);
    node.stage(volumeId, context, fileSystem("ext4"), Map.of());

    assertError(() -> node.provider().stats().orElseThrow().stats(newVolumeId(), node.stagingPath(volumeId)),
        DriverError.NotFound.class, volumeId + ")), which is not this volume's device");
  }

  @Test
  void aDeviceThatIsNotAttachedIsUnavailableNamingWhatWasSearched() {
    var volumeId = newVolumeId();

    assertError(() -> node.stage(volumeId, Map.of(), fileSystem("ext4"), Map.of()), DriverError.Unavailable.class,
        "no block device of volume " + volumeId + " appeared within PT2S");
  }

  @Test
  void aStaleLinkToAnotherVolumesDeviceIsNeverMounted() throws IOException {
    var attachedVolume = newVolumeId();
    var missingVolume = newVolumeId();
    node.attach(attachedVolume, SIZE);
    var device = node.backend().device(attachedVolume).orElseThrow();
    var staleLink = node.root().resolve("state/by-id").resolve(VolumeDeviceLocator.byIdName(missingVolume));
    Files.createSymbolicLink(staleLink, device);

    assertError(() -> node.stage(missingVolume, Map.of("devicePath", staleLink.toString()), fileSystem("ext4"),
        Map.of()), DriverError.Unavailable.class, "a stale link to another volume");
    assertThat(node.host().formatter().probe(device)).isEqualTo(new DeviceContent.Unformatted());
  }

  @Test
  void legacyXfsVolumesAreMadeWithoutTheNewFeatures() {
    try (var legacyNode = new LocalEbsNode(true)) {
      var volumeId = newVolumeId();
      var context = legacyNode.attach(volumeId, SIZE);

      legacyNode.stage(volumeId, context, fileSystem("xfs"), Map.of());

      var info = legacyNode.host().runner().run(Command.of(HostTool.XFS_INFO,
          legacyNode.stagingPath(volumeId).toString())).stdout();
      assertThat(info).contains("bigtime=0").contains("reflink=0");
    }
    assertThat(MkfsOptions.defaults().xfsLegacyFormat()).isFalse();
  }

  private String fileSystemUuid(String volumeId) {
    var device = node.backend().device(volumeId).orElseThrow();
    return node.host().runner().run(Command.of(HostTool.BLKID, "-p", "-s", "UUID", "-o", "value",
        device.toString())).stdout().strip();
  }

  /** A FUSE mount whose daemon is gone at once (see HostToolsIntegrationTest): every access fails with ENOTCONN. */
  private static void mountDeadFuse(Path target) throws IOException, InterruptedException {
    var mount = new ProcessBuilder("mount", "-t", "fuse", "-o", "fd=0,rootmode=40000,user_id=0,group_id=0",
        "dead-fuse", target.toString())
        .redirectInput(new File("/dev/fuse")).redirectErrorStream(true).start();
    assertThat(mount.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(mount.exitValue()).isZero();
  }
}
