package io.awscsi.e2e.adversarial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import csi.v1.ControllerUnpublishVolumeRequest;
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.NodeUnpublishVolumeRequest;
import csi.v1.NodeUnstageVolumeRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeCapability.AccessMode.Mode;
import io.awscsi.e2e.adversarial.CsiRequests.AttachedVolume;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.grpc.Status.Code;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The EBS node over its socket (the built driver in {@code all} mode, loop-device backend) as a hostile or buggy
 * caller would use it. Each test names the request it sends and the answer it asserts; each would have caught one
 * class of issue 12 on the node side.
 */
@Tag("integration")
class EbsNodeAdversarialTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  private static final VolumeCapability EXT4 = CsiRequests.mount("ext4", Mode.SINGLE_NODE_WRITER);
  private static final VolumeCapability BLOCK = CsiRequests.block(Mode.SINGLE_NODE_WRITER);
  private static final AtomicInteger NAMES = new AtomicInteger();
  private static DriverProcess ebs;

  @BeforeAll
  static void startDriver() {
    ebs = FX.start(Driver.EBS, DriverFixture.Mode.ALL);
  }

  /** A staged and published ext4 volume with a file written through its target. */
  private record Published(AttachedVolume volume, Path staging, Path target) {
    String id() {
      return volume.volumeId();
    }
  }

  private static AttachedVolume attached(VolumeCapability cap) {
    return CsiRequests.createAndAttach(ebs, FX.nodeId(), "adv-ebs-" + NAMES.incrementAndGet(), cap);
  }

  private static Path staged(AttachedVolume v) {
    Path staging = FX.newDirectory("staging-").resolve("globalmount");
    CsiAssert.ok(() -> ebs.node().nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(v.volumeId())
        .putAllPublishContext(v.publishContext()).setStagingTargetPath(staging.toString()).setVolumeCapability(EXT4)
        .build()));
    return staging;
  }

  private static Published published(String content) throws IOException {
    AttachedVolume v = attached(EXT4);
    Path staging = staged(v);
    Path target = FX.newDirectory("pod-").resolve("mount");
    CsiAssert.ok(() -> ebs.node().nodePublishVolume(publish(v.volumeId(), staging, target, EXT4, false).build()));
    Files.writeString(target.resolve("data.txt"), content);
    return new Published(v, staging, target);
  }

  private static NodePublishVolumeRequest.Builder publish(String id, Path staging, Path target, VolumeCapability cap,
      boolean readonly) {
    NodePublishVolumeRequest.Builder b = NodePublishVolumeRequest.newBuilder().setVolumeId(id)
        .setTargetPath(target.toString()).setVolumeCapability(cap).setReadonly(readonly);
    return staging == null ? b : b.setStagingTargetPath(staging.toString());
  }

  /**
   * Tears a volume down on this node and detaches it (its target and staging path may be null), so the cases that
   * end with it leave the instance's attachment limit to the others.
   */
  private static void release(AttachedVolume v, Path staging, Path target) {
    if (target != null) {
      CsiAssert.ok(() -> ebs.node().nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder()
          .setVolumeId(v.volumeId()).setTargetPath(target.toString()).build()));
    }
    if (staging != null) {
      CsiAssert.ok(() -> ebs.node().nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder()
          .setVolumeId(v.volumeId()).setStagingTargetPath(staging.toString()).build()));
    }
    CsiAssert.ok(() -> ebs.controller().controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder()
        .setVolumeId(v.volumeId()).setNodeId(FX.nodeId()).build()));
  }

  // ---- item 3: one id parser at the edge ------------------------------------------------------------------------

  /**
   * NodeStageVolume / NodePublishVolume / NodeGetVolumeStats / NodeExpandVolume with a malformed volume_id (within a
   * 10 s deadline) -> NOT_FOUND naming volume_id, at once; NodeUnstageVolume / NodeUnpublishVolume with it -> OK
   * (nothing of it can exist), and the mount at the path they name stays.
   */
  @ParameterizedTest
  @ValueSource(strings = {"vol-../../x", "vol-0123456789abcdef0/../../x", "../../../../etc", "vol-",
      "vol-0123456789ABCDEF0", "nvme-Amazon_Elastic_Block_Store_vol0123"})
  void malformedVolumeIdsAreAnsweredAtOnce(String id) throws IOException {
    Published other = published("other");
    Path staging = FX.newDirectory("staging-");
    Path target = FX.newDirectory("pod-").resolve("mount");
    long start = System.nanoTime();
    CsiAssert.refused(Code.NOT_FOUND, "volume_id", () -> ebs.node().withDeadlineAfter(10, TimeUnit.SECONDS)
        .nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(id).setStagingTargetPath(staging.toString())
            .setVolumeCapability(EXT4).putPublishContext("devicePath", "/dev/xvdaa").build()));
    CsiAssert.refused(Code.NOT_FOUND, "volume_id", () -> ebs.node().withDeadlineAfter(10, TimeUnit.SECONDS)
        .nodePublishVolume(publish(id, other.staging(), target, EXT4, false).build()));
    CsiAssert.refused(Code.NOT_FOUND, "volume_id", () -> ebs.node().withDeadlineAfter(10, TimeUnit.SECONDS)
        .nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder().setVolumeId(id)
            .setVolumePath(other.target().toString()).build()));
    CsiAssert.refused(Code.NOT_FOUND, "volume_id", () -> ebs.node().withDeadlineAfter(10, TimeUnit.SECONDS)
        .nodeExpandVolume(NodeExpandVolumeRequest.newBuilder().setVolumeId(id)
            .setVolumePath(other.target().toString()).build()));
    assertThat(System.nanoTime() - start).as("answered at once").isLessThan(TimeUnit.SECONDS.toNanos(10));
    CsiAssert.ok(() -> ebs.node().nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(id)
        .setTargetPath(other.target().toString()).build()));
    CsiAssert.ok(() -> ebs.node().nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder().setVolumeId(id)
        .setStagingTargetPath(other.staging().toString()).build()));
    assertThat(Files.readString(other.target().resolve("data.txt"))).isEqualTo("other");
    assertThat(HostCommands.mountAt(other.staging())).isPresent();
    assertThat(target).doesNotExist();
  }

  /** NodeStageVolume with a volume_id holding a newline or longer than 1024 characters -> INVALID_ARGUMENT. */
  @Test
  void volumeIdsWithControlCharactersOrUnboundedLengthAreInvalid() {
    Path staging = FX.newDirectory("staging-");
    for (String id : new String[] {"vol-0123456789abcdef0\n", "vol-0\u0000", "vol-" + "0".repeat(2000)}) {
      CsiAssert.refused(Code.INVALID_ARGUMENT, "volume_id", () -> ebs.node().nodeStageVolume(
          NodeStageVolumeRequest.newBuilder().setVolumeId(id).setStagingTargetPath(staging.toString())
              .setVolumeCapability(EXT4).build()));
    }
  }

  // ---- item 4: read-only is absolute ----------------------------------------------------------------------------

  /**
   * NodePublishVolume readonly=true with mount_flags [rw] or [nosuid,rw] -> INVALID_ARGUMENT naming
   * volume_capability.mount.mount_flags, and nothing is mounted at the target.
   */
  @Test
  void aReadOnlyPublishWithRwFlagsIsInvalid() throws IOException {
    Published p = published("x");
    for (String[] flags : new String[][] {{"rw"}, {"nosuid", "rw"}, {"nosuid,rw"}}) {
      Path target = FX.newDirectory("pod-").resolve("mount");
      CsiAssert.refused(Code.INVALID_ARGUMENT, "volume_capability.mount.mount_flags", () -> ebs.node()
          .nodePublishVolume(publish(p.id(), p.staging(), target, CsiRequests.mount("ext4", Mode.SINGLE_NODE_WRITER,
              flags), true).build()));
      assertThat(HostCommands.mountAt(target)).isEmpty();
    }
  }

  /** NodePublishVolume readonly=true, mount_flags [nosuid] -> OK; the target is a read-only mount, writes fail. */
  @Test
  void aReadOnlyFileSystemPublishRefusesWrites() throws IOException {
    Published p = published("x");
    Path target = FX.newDirectory("pod-").resolve("mount");
    CsiAssert.ok(() -> ebs.node().nodePublishVolume(publish(p.id(), p.staging(), target,
        CsiRequests.mount("ext4", Mode.SINGLE_NODE_WRITER, "nosuid"), true).build()));
    assertThat(HostCommands.mountedReadOnly(target)).isTrue();
    assertThatThrownBy(() -> Files.writeString(target.resolve("y"), "y")).isInstanceOf(IOException.class);
    assertThat(Files.readString(target.resolve("data.txt"))).isEqualTo("x");
  }

  /**
   * NodePublishVolume of a block volume with readonly=true -> OK, and the device at the target cannot be opened for
   * writing; NodePublishVolume of the same volume read-write at a second target meanwhile -> FAILED_PRECONDITION;
   * after NodeUnpublishVolume of the read-only target the read-write publish -> OK and writes work.
   */
  @Test
  void aReadOnlyBlockPublishRefusesWrites() throws IOException {
    AttachedVolume v = attached(BLOCK);
    Path target = FX.newDirectory("pod-").resolve("dev");
    CsiAssert.ok(() -> ebs.node().nodePublishVolume(publish(v.volumeId(), FX.newDirectory("stg-"), target, BLOCK,
        true).putAllPublishContext(v.publishContext()).build()));
    assertThatThrownBy(() -> {
      try (RandomAccessFile raw = new RandomAccessFile(target.toFile(), "rw")) {
        raw.write(new byte[] {1, 2, 3});
      }
    }).as("a write through a read-only block publish").isInstanceOf(IOException.class);

    Path writable = FX.newDirectory("pod-").resolve("dev");
    CsiAssert.refused(Code.FAILED_PRECONDITION, () -> ebs.node().nodePublishVolume(publish(v.volumeId(),
        FX.newDirectory("stg-"), writable, BLOCK, false).putAllPublishContext(v.publishContext()).build()));
    CsiAssert.ok(() -> ebs.node().nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder()
        .setVolumeId(v.volumeId()).setTargetPath(target.toString()).build()));
    CsiAssert.ok(() -> ebs.node().nodePublishVolume(publish(v.volumeId(), FX.newDirectory("stg-"), writable, BLOCK,
        false).putAllPublishContext(v.publishContext()).build()));
    try (RandomAccessFile raw = new RandomAccessFile(writable.toFile(), "rw")) {
      raw.write(new byte[] {1, 2, 3});
    }
    CsiAssert.ok(() -> ebs.node().nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder()
        .setVolumeId(v.volumeId()).setTargetPath(writable.toString()).build()));
  }

  // ---- item 5: staging identity ---------------------------------------------------------------------------------

  /**
   * NodePublishVolume of an attached but never staged volume with another volume's staging path ->
   * FAILED_PRECONDITION naming staging_target_path; with "/" (the host's root) or /proc, outside the kubelet
   * directory -> INVALID_ARGUMENT naming it; nothing is mounted at the target.
   */
  @Test
  void publishFromAStagingPathThatIsNotTheVolumesIsRefused() throws IOException {
    Published other = published("another tenant's data");
    AttachedVolume v = attached(EXT4);
    for (Path staging : new Path[] {Path.of("/"), other.staging(), Path.of("/proc")}) {
      Path target = FX.newDirectory("pod-").resolve("mount");
      CsiAssert.refused(staging.equals(other.staging()) ? Code.FAILED_PRECONDITION : Code.INVALID_ARGUMENT,
          "staging_target_path", () -> ebs.node().nodePublishVolume(
              publish(v.volumeId(), staging, target, EXT4, false).build()));
      assertThat(HostCommands.mountAt(target)).as("mounted from " + staging).isEmpty();
    }
  }

  /**
   * NodeGetVolumeStats and NodeExpandVolume of a staged volume with volume_path "/" or another volume's target ->
   * NOT_FOUND naming volume_path (never the host's root file system's figures); at its own target -> OK.
   */
  @Test
  void statsAndExpandOfAPathThatIsNotTheVolumesAreNotFound() throws IOException {
    Published mine = published("mine");
    Published other = published("other");
    for (Path path : new Path[] {Path.of("/"), other.target(), other.staging(), Path.of("/proc")}) {
      CsiAssert.refused(Code.NOT_FOUND, "volume_path", () -> ebs.node().nodeGetVolumeStats(
          NodeGetVolumeStatsRequest.newBuilder().setVolumeId(mine.id()).setVolumePath(path.toString()).build()));
      CsiAssert.refused(Code.NOT_FOUND, "volume_path", () -> ebs.node().nodeExpandVolume(
          NodeExpandVolumeRequest.newBuilder().setVolumeId(mine.id()).setVolumePath(path.toString()).build()));
    }
    var stats = CsiAssert.ok(() -> ebs.node().nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder()
        .setVolumeId(mine.id()).setVolumePath(mine.target().toString()).build()));
    assertThat(stats.getUsage(0).getTotal()).isBetween(900L << 20, 1L << 30);
  }

  // ---- item 7: device identity ----------------------------------------------------------------------------------

  /**
   * NodeStageVolume of a made-up (well-formed) volume id whose publish_context devicePath names a loop device the
   * driver did not create (holding another tenant's ext4), a blank one, or another volume's device -> UNAVAILABLE
   * naming the volume (no device of it is attached); nothing is mounted, formatted or changed.
   */
  @Test
  void stagingUsesOnlyADeviceProvablyTheVolumes() throws IOException {
    Path dir = FX.newDirectory("tenant-");
    Path tenant = HostCommands.loopDevice(dir, "tenant", 64 << 20);
    HostCommands.run("mkfs.ext4", "-q", "-L", "tenant", tenant.toString());
    String uuid = HostCommands.run("blkid", "-s", "UUID", "-o", "value", tenant.toString()).strip();
    Path blank = HostCommands.loopDevice(dir, "blank", 64 << 20);
    Published other = published("other");
    try {
      for (Path device : new Path[] {tenant, blank, Path.of("/dev/disk/by-id").resolve("does-not-exist")}) {
        Path staging = FX.newDirectory("staging-").resolve("globalmount");
        CsiAssert.refused(Code.UNAVAILABLE, "vol-0000000000000dead", () -> ebs.node().nodeStageVolume(
            NodeStageVolumeRequest.newBuilder().setVolumeId("vol-0000000000000dead")
                .putPublishContext("devicePath", device.toString()).setStagingTargetPath(staging.toString())
                .setVolumeCapability(EXT4).build()));
        assertThat(HostCommands.mountAt(staging)).as("staged from " + device).isEmpty();
      }
      // Another volume's device named for this volume: refused, and the volume's own device is used.
      AttachedVolume v = attached(EXT4);
      Path staging = FX.newDirectory("staging-").resolve("globalmount");
      Path otherDevice = Path.of(HostCommands.mountAt(other.staging()).orElseThrow().split(" - ")[1].split(" ")[1]);
      Map<String, String> context = Map.of("devicePath", otherDevice.toString());
      CsiAssert.ok(() -> ebs.node().nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(v.volumeId())
          .putAllPublishContext(context).setStagingTargetPath(staging.toString()).setVolumeCapability(EXT4).build()));
      assertThat(HostCommands.mountAt(staging).orElseThrow()).doesNotContain(" " + otherDevice + " ");
      assertThat(Files.readString(other.target().resolve("data.txt"))).isEqualTo("other");
      assertThat(HostCommands.run("blkid", "-s", "UUID", "-o", "value", tenant.toString()).strip()).isEqualTo(uuid);
      assertThat(HostCommands.fsTypeOn(blank)).as("the blank device stays blank").isEmpty();
    } finally {
      HostCommands.run("losetup", "-d", tenant.toString());
      HostCommands.run("losetup", "-d", blank.toString());
    }
  }

  /**
   * NodeStageVolume with publish_context devicePath outside /dev (/etc/passwd, /dev/../etc/passwd, a relative path)
   * -> INVALID_ARGUMENT naming publish_context.devicePath; the file is untouched.
   */
  @Test
  void aDevicePathOutsideDevIsInvalid() throws IOException {
    AttachedVolume v = attached(EXT4);
    Path victim = Files.writeString(FX.newDirectory("victim-").resolve("passwd"), "root:x:0:0\n");
    for (String devicePath : new String[] {victim.toString(), "/dev/../" + victim, "dev/loop0", "/dev"}) {
      Path staging = FX.newDirectory("staging-").resolve("globalmount");
      CsiAssert.refused(Code.INVALID_ARGUMENT, "publish_context.devicePath", () -> ebs.node().nodeStageVolume(
          NodeStageVolumeRequest.newBuilder().setVolumeId(v.volumeId()).putPublishContext("devicePath", devicePath)
              .setStagingTargetPath(staging.toString()).setVolumeCapability(EXT4).build()));
    }
    assertThat(Files.readString(victim)).isEqualTo("root:x:0:0\n");
  }

  // ---- item 12b and hostile target paths ------------------------------------------------------------------------

  /**
   * NodePublishVolume of a mount volume onto a regular file or onto a symbolic link to a directory, and of a block
   * volume onto a directory -> FAILED_PRECONDITION naming target_path (never INTERNAL with mount's text); below /dev
   * (outside the kubelet directory) -> INVALID_ARGUMENT naming it; NodeStageVolume onto a symbolic link ->
   * FAILED_PRECONDITION naming staging_target_path. Nothing is mounted.
   */
  @Test
  void pathsThatCannotHoldTheMountAreRefused() throws IOException {
    Published p = published("x");
    Path dir = FX.newDirectory("hostile-");
    Path file = Files.writeString(dir.resolve("file"), "not a directory");
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), elsewhere);
    Path underDev = Path.of("/dev/aws-csi-adversarial-" + ProcessHandle.current().pid());
    for (Path target : new Path[] {file, link, underDev}) {
      CsiAssert.refused(target == underDev ? Code.INVALID_ARGUMENT : Code.FAILED_PRECONDITION, "target_path",
          () -> ebs.node().nodePublishVolume(publish(p.id(), p.staging(), target, EXT4, false).build()));
      assertThat(HostCommands.mountAt(target)).isEmpty();
      assertThat(HostCommands.mountAt(elsewhere)).isEmpty();
    }
    assertThat(Path.of("/dev/aws-csi-adversarial-" + ProcessHandle.current().pid())).doesNotExist();
    AttachedVolume block = attached(BLOCK);
    CsiAssert.refused(Code.FAILED_PRECONDITION, "target_path", () -> ebs.node().nodePublishVolume(
        publish(block.volumeId(), dir, FX.newDirectory("pod-"), BLOCK, false)
            .putAllPublishContext(block.publishContext()).build()));
    AttachedVolume v = attached(EXT4);
    CsiAssert.refused(Code.FAILED_PRECONDITION, "staging_target_path", () -> ebs.node().nodeStageVolume(
        NodeStageVolumeRequest.newBuilder().setVolumeId(v.volumeId()).putAllPublishContext(v.publishContext())
            .setStagingTargetPath(link.toString()).setVolumeCapability(EXT4).build()));
    assertThat(HostCommands.mountAt(elsewhere)).isEmpty();
  }

  /**
   * NodeUnpublishVolume / NodeUnstageVolume of one volume naming another volume's target or staging path ->
   * FAILED_PRECONDITION; the host's root or /proc (outside the kubelet directory) -> INVALID_ARGUMENT; nothing
   * unmounted; naming a regular file with data -> FAILED_PRECONDITION, the file kept.
   */
  @Test
  void tearDownsNeverTouchWhatIsNotTheVolumes() throws IOException {
    Published mine = published("mine");
    Published other = published("other");
    for (Path path : new Path[] {other.target(), Path.of("/"), Path.of("/proc")}) {
      CsiAssert.refused(path.equals(other.target()) ? Code.FAILED_PRECONDITION : Code.INVALID_ARGUMENT,
          "target_path", () -> ebs.node().nodeUnpublishVolume(
          NodeUnpublishVolumeRequest.newBuilder().setVolumeId(mine.id()).setTargetPath(path.toString()).build()));
    }
    Path file = Files.writeString(FX.newDirectory("victim-").resolve("notes"), "keep me");
    CsiAssert.refused(Code.FAILED_PRECONDITION, "target_path", () -> ebs.node().nodeUnpublishVolume(
        NodeUnpublishVolumeRequest.newBuilder().setVolumeId(mine.id()).setTargetPath(file.toString()).build()));
    assertThat(Files.readString(file)).isEqualTo("keep me");
    CsiAssert.ok(() -> ebs.node().nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(mine.id())
        .setTargetPath(mine.target().toString()).build()));
    for (Path path : new Path[] {other.staging(), Path.of("/"), Path.of("/proc")}) {
      CsiAssert.refused(path.equals(other.staging()) ? Code.FAILED_PRECONDITION : Code.INVALID_ARGUMENT,
          "staging_target_path", () -> ebs.node().nodeUnstageVolume(
          NodeUnstageVolumeRequest.newBuilder().setVolumeId(mine.id()).setStagingTargetPath(path.toString())
              .build()));
    }
    assertThat(Files.readString(other.target().resolve("data.txt"))).isEqualTo("other");
    assertThat(HostCommands.mountAt(other.staging())).isPresent();
    assertThat(HostCommands.mountAt(Path.of("/proc"))).isPresent();
    // Its own staging path still tears down.
    CsiAssert.ok(() -> ebs.node().nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder().setVolumeId(mine.id())
        .setStagingTargetPath(mine.staging().toString()).build()));
    assertThat(HostCommands.mountAt(mine.staging())).isEmpty();
  }

  // ---- issue 24 item 4: node paths through symbolic links, staging path as a target ---------------------------

  /**
   * A directory of the kubelet's tree replaced by a symbolic link to a host directory outside it. NodeStageVolume,
   * NodePublishVolume, NodeUnpublishVolume, NodeUnstageVolume through it -> INVALID_ARGUMENT naming the path's field;
   * NodeGetVolumeStats / NodeExpandVolume -> NOT_FOUND naming volume_path. Nothing is created, formatted, mounted or
   * unmounted outside (a tmpfs mounted there stays). A link whose target stays inside the kubelet directory is
   * followed once, and the mount lands at the resolved path.
   */
  @Test
  void pathsThroughALinkedParentNeverLeaveTheKubeletDirectory() throws IOException {
    Published p = published("mine");
    Path outside = FX.newDirectoryOutsideKubelet("host-");
    Path hostMount = Files.createDirectories(outside.resolve("mnt"));
    HostCommands.run("mount", "-t", "tmpfs", "-o", "size=1m", "adv-host", hostMount.toString());
    try {
      Path dir = FX.newDirectory("linked-");
      Path link = Files.createSymbolicLink(dir.resolve("volumes"), outside);
      // The volumes of the suite are few (the instance's attachment limit): the published one is named throughout.
      CsiAssert.refused(Code.INVALID_ARGUMENT, "staging_target_path", () -> ebs.node().nodeStageVolume(
          NodeStageVolumeRequest.newBuilder().setVolumeId(p.id()).putAllPublishContext(p.volume().publishContext())
              .setStagingTargetPath(link.resolve("globalmount").toString()).setVolumeCapability(EXT4).build()));
      CsiAssert.refused(Code.INVALID_ARGUMENT, "target_path", () -> ebs.node().nodePublishVolume(
          publish(p.id(), p.staging(), link.resolve("pod/mount"), EXT4, false).build()));
      CsiAssert.refused(Code.INVALID_ARGUMENT, "staging_target_path", () -> ebs.node().nodePublishVolume(
          publish(p.id(), link.resolve("globalmount"), FX.newDirectory("pod-").resolve("mount"), EXT4, false)
              .build()));
      CsiAssert.refused(Code.INVALID_ARGUMENT, "target_path", () -> ebs.node().nodePublishVolume(
          publish(p.id(), FX.newDirectory("staging-"), link.resolve("block"), BLOCK, false)
              .putAllPublishContext(p.volume().publishContext()).build()));
      CsiAssert.refused(Code.INVALID_ARGUMENT, "target_path", () -> ebs.node().nodeUnpublishVolume(
          NodeUnpublishVolumeRequest.newBuilder().setVolumeId(p.id()).setTargetPath(link.resolve("mnt").toString())
              .build()));
      CsiAssert.refused(Code.INVALID_ARGUMENT, "staging_target_path", () -> ebs.node().nodeUnstageVolume(
          NodeUnstageVolumeRequest.newBuilder().setVolumeId(p.id()).setStagingTargetPath(link.resolve("mnt")
              .toString()).build()));
      CsiAssert.refused(Code.NOT_FOUND, "volume_path", () -> ebs.node().nodeGetVolumeStats(
          NodeGetVolumeStatsRequest.newBuilder().setVolumeId(p.id()).setVolumePath(link.resolve("mnt").toString())
              .build()));
      CsiAssert.refused(Code.NOT_FOUND, "volume_path", () -> ebs.node().nodeExpandVolume(
          NodeExpandVolumeRequest.newBuilder().setVolumeId(p.id()).setVolumePath(link.resolve("mnt").toString())
              .build()));
      try (var listing = Files.list(outside)) {
        assertThat(listing.map(Path::getFileName).map(Path::toString)).containsExactly("mnt");
      }
      assertThat(HostCommands.mountAt(hostMount)).as("the host's tmpfs").isPresent();
      assertThat(HostCommands.mountInfo()).noneMatch(line -> line.contains(" " + outside + "/")
          && !line.contains(" " + hostMount + " "));
      // A link that stays inside the kubelet directory is followed once: the bind lands at the resolved path.
      Path pod = FX.newDirectory("pod-");
      Path alias = Files.createSymbolicLink(FX.newDirectory("alias-").resolve("pod"), pod);
      CsiAssert.ok(() -> ebs.node().nodePublishVolume(publish(p.id(), p.staging(), alias.resolve("mount"), EXT4,
          false).build()));
      assertThat(Files.readString(pod.resolve("mount/data.txt"))).isEqualTo("mine");
      CsiAssert.ok(() -> ebs.node().nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(p.id())
          .setTargetPath(alias.resolve("mount").toString()).build()));
      assertThat(HostCommands.mountAt(pod.resolve("mount"))).isEmpty();
      release(p.volume(), p.staging(), p.target());
    } finally {
      HostCommands.run("umount", hostMount.toString());
    }
  }

  /**
   * The staging path is never a target: NodeUnpublishVolume naming a volume's staging path -> INVALID_ARGUMENT naming
   * target_path, the staged file system stays mounted; NodePublishVolume with the target equal to the staging path,
   * inside it or around it -> INVALID_ARGUMENT naming target_path, nothing mounted (never OK with nothing bound).
   */
  @Test
  void theStagingPathIsNeverATarget() throws IOException {
    Published p = published("staged data");
    CsiAssert.refused(Code.INVALID_ARGUMENT, "target_path", () -> ebs.node().nodeUnpublishVolume(
        NodeUnpublishVolumeRequest.newBuilder().setVolumeId(p.id()).setTargetPath(p.staging().toString()).build()));
    assertThat(HostCommands.mountAt(p.staging())).as("the staging mount").isPresent();
    assertThat(Files.readString(p.target().resolve("data.txt"))).isEqualTo("staged data");
    Path staging = p.staging();
    for (Path target : new Path[] {staging, staging.resolve("inside"), staging.getParent()}) {
      CsiAssert.refused(Code.INVALID_ARGUMENT, "target_path", () -> ebs.node().nodePublishVolume(
          publish(p.id(), staging, target, EXT4, false).build()));
    }
    assertThat(staging.resolve("inside")).doesNotExist();
    assertThat(HostCommands.mountInfo().stream().filter(line -> line.contains(" " + staging + " ")
        || line.contains(" " + staging.getParent() + " "))).as("the staging mount alone").hasSize(1);
    release(p.volume(), p.staging(), p.target());
  }

  // ---- issue 24 item 5: loop identity is the backing file itself ------------------------------------------------

  /**
   * Loop devices attached in a mount namespace of their own, where another directory is bound over the driver's
   * loop state, over files named {@code volumes/<vol>.img} with the volume's size: by name and size they are the
   * volume's. NodeStageVolume of an attached volume with such a device as devicePath -> OK, staged
   * on the volume's own device; of a made-up volume id with its foreign device -> UNAVAILABLE. Neither foreign
   * device is mounted or formatted.
   */
  @Test
  void aForeignLoopDeviceWithTheVolumesNameAndSizeIsNotTheVolume() throws IOException {
    AttachedVolume v = attached(EXT4);
    Path state = FX.loopStateDir();
    long size = Files.size(state.resolve("volumes").resolve(v.volumeId() + ".img"));
    Path foreignState = FX.newDirectoryOutsideKubelet("foreign-state-");
    Files.createDirectories(foreignState.resolve("volumes"));
    String madeUp = "vol-0000000000000beef";
    for (String id : new String[] {v.volumeId(), madeUp}) {
      try (RandomAccessFile f = new RandomAccessFile(foreignState.resolve("volumes/" + id + ".img").toFile(), "rw")) {
        f.setLength(size);
      }
    }
    String script = "mount --bind " + foreignState + " " + state
        + " && losetup --find --show " + state.resolve("volumes/" + v.volumeId() + ".img")
        + " && losetup --find --show " + state.resolve("volumes/" + madeUp + ".img");
    var foreign = HostCommands.run("unshare", "--mount", "--propagation", "private", "sh", "-c", script).lines()
        .map(String::strip).filter(l -> l.startsWith("/dev/")).map(Path::of).toList();
    try {
      assertThat(foreign).hasSize(2);
      // Once that namespace is gone the kernel reports the names below the bound directory: /volumes/<vol>.img, as
      // for this state's own files attached in another container through a bind mount of the state.
      String[] ids = {v.volumeId(), madeUp};
      for (int i = 0; i < 2; i++) {
        assertThat(Files.readString(Path.of("/sys/block").resolve(foreign.get(i).getFileName())
            .resolve("loop/backing_file")).strip()).as("the name the kernel reports")
            .endsWith("/volumes/" + ids[i] + ".img");
      }
      Path staging = FX.newDirectory("staging-").resolve("globalmount");
      CsiAssert.ok(() -> ebs.node().nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(v.volumeId())
          .putAllPublishContext(v.publishContext()).putPublishContext("devicePath", foreign.get(0).toString())
          .setStagingTargetPath(staging.toString()).setVolumeCapability(EXT4).build()));
      assertThat(HostCommands.mountAt(staging).orElseThrow()).doesNotContain(" " + foreign.get(0) + " ");
      Path other = FX.newDirectory("staging-").resolve("globalmount");
      CsiAssert.refused(Code.UNAVAILABLE, madeUp, () -> ebs.node().nodeStageVolume(NodeStageVolumeRequest
          .newBuilder().setVolumeId(madeUp).putPublishContext("devicePath", foreign.get(1).toString())
          .setStagingTargetPath(other.toString()).setVolumeCapability(EXT4).build()));
      assertThat(HostCommands.mountAt(other)).isEmpty();
      for (Path device : foreign) {
        assertThat(HostCommands.fsTypeOn(device)).as(device + " never formatted").isEmpty();
        assertThat(HostCommands.mountInfo()).noneMatch(line -> line.contains(" " + device + " "));
      }
      release(v, staging, null);
    } finally {
      for (Path device : foreign) {
        HostCommands.run("losetup", "-d", device.toString());
      }
    }
  }
}
