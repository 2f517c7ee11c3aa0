package io.awscsi.e2e.adversarial;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateVolumeRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodeUnpublishVolumeRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeCapability.AccessMode.Mode;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.grpc.Status.Code;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The EFS node over its socket (the built driver in {@code all} mode with volume stats on, local stand-in backend)
 * as a hostile or buggy caller would use it. Each test names the request it sends and the answer it asserts.
 */
@Tag("integration")
class EfsNodeAdversarialTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  private static final VolumeCapability RWX = CsiRequests.mount("", Mode.MULTI_NODE_MULTI_WRITER);
  private static final AtomicInteger NAMES = new AtomicInteger();
  private static DriverProcess efs;

  @BeforeAll
  static void startDriver() {
    efs = FX.start(Driver.EFS, DriverFixture.Mode.ALL, "--vol-metrics-opt-in");
  }

  private static String accessPointVolume() {
    return CsiAssert.ok(() -> efs.controller().createVolume(CreateVolumeRequest.newBuilder()
        .setName("adv-efs-" + NAMES.incrementAndGet()).addVolumeCapabilities(RWX)
        .putParameters("provisioningMode", "efs-ap").putParameters("fileSystemId", FX.aws().fileSystemId())
        .putParameters("directoryPerms", "700").build())).getVolume().getVolumeId();
  }

  private static NodePublishVolumeRequest.Builder publish(String id, Path target, VolumeCapability cap,
      boolean readonly) {
    return NodePublishVolumeRequest.newBuilder().setVolumeId(id).setTargetPath(target.toString())
        .setVolumeCapability(cap).setReadonly(readonly);
  }

  private static Path published(String id, String content) throws IOException {
    Path target = FX.newDirectory("pod-").resolve("mount");
    CsiAssert.ok(() -> efs.node().nodePublishVolume(publish(id, target, RWX, false).build()));
    Files.writeString(target.resolve("data.txt"), content);
    return target;
  }

  /** A tmpfs the test mounts itself: "another file system" at a target. */
  private static Path tmpfs() {
    Path dir = FX.newDirectory("tmpfs-");
    HostCommands.run("mount", "-t", "tmpfs", "-o", "size=1m", "adv-tmpfs", dir.toString());
    return dir;
  }

  // ---- item 3 ---------------------------------------------------------------------------------------------------

  /**
   * NodePublishVolume / NodeGetVolumeStats with a volume_id that is no EFS handle (within 10 s) -> NOT_FOUND naming
   * volume_id; NodeUnpublishVolume with it -> OK, and the mount at the path it names stays.
   */
  @ParameterizedTest
  @ValueSource(strings = {"efs:fs-../../x", "fs-zzzz:/a", "efs:fs-0123abcd:/a:fsap-../x", "vol-0123456789abcdef0",
      "efs:fs-0123abcd:/a:b:c"})
  void malformedVolumeIdsAreAnsweredAtOnce(String id) throws IOException {
    Path other = published(accessPointVolume(), "other");
    Path target = FX.newDirectory("pod-").resolve("mount");
    CsiAssert.refused(Code.NOT_FOUND, "volume_id", () -> efs.node().withDeadlineAfter(10, TimeUnit.SECONDS)
        .nodePublishVolume(publish(id, target, RWX, false).build()));
    CsiAssert.refused(Code.NOT_FOUND, "volume_id", () -> efs.node().withDeadlineAfter(10, TimeUnit.SECONDS)
        .nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder().setVolumeId(id).setVolumePath(other.toString())
            .build()));
    CsiAssert.ok(() -> efs.node().nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(id)
        .setTargetPath(other.toString()).build()));
    assertThat(Files.readString(other.resolve("data.txt"))).isEqualTo("other");
    assertThat(target).doesNotExist();
  }

  // ---- item 4 ---------------------------------------------------------------------------------------------------

  /**
   * NodePublishVolume readonly=true with mount_flags [rw], and MULTI_NODE_READER_ONLY with [rw] -> INVALID_ARGUMENT
   * naming volume_capability.mount.mount_flags; readonly=true alone -> OK and the target refuses writes.
   */
  @Test
  void readOnlyIsAbsolute() throws IOException {
    String id = accessPointVolume();
    Path target = FX.newDirectory("pod-").resolve("mount");
    CsiAssert.refused(Code.INVALID_ARGUMENT, "volume_capability.mount.mount_flags", () -> efs.node()
        .nodePublishVolume(publish(id, target, CsiRequests.mount("", Mode.MULTI_NODE_MULTI_WRITER, "rw"), true)
            .build()));
    CsiAssert.refused(Code.INVALID_ARGUMENT, "volume_capability.mount.mount_flags", () -> efs.node()
        .nodePublishVolume(publish(id, target, CsiRequests.mount("", Mode.MULTI_NODE_READER_ONLY, "noac,rw"), false)
            .build()));
    assertThat(HostCommands.mountAt(target)).isEmpty();
    CsiAssert.ok(() -> efs.node().nodePublishVolume(publish(id, target, RWX, true).build()));
    assertThat(HostCommands.mountedReadOnly(target)).isTrue();
    assertThat(Files.isWritable(target)).isFalse();
  }

  /**
   * NodePublishVolume of a static PV whose handle names the controller's efs-dir ledger ({@code /.efs-csi-volumes})
   * -> INVALID_ARGUMENT naming volume_id; nothing is mounted: the driver's records are never a tenant's volume.
   */
  @Test
  void theLedgerIsNeverPublished() throws IOException {
    Path target = FX.newDirectory("pod-").resolve("mount");
    CsiAssert.refused(Code.INVALID_ARGUMENT, "volume_id", () -> efs.node().nodePublishVolume(publish(
        "efs:" + FX.aws().fileSystemId() + ":/.efs-csi-volumes", target, RWX, false).build()));
    assertThat(HostCommands.mountAt(target)).isEmpty();
  }

  // ---- item 6: target identity ----------------------------------------------------------------------------------

  /**
   * NodePublishVolume onto a target where another file system (a tmpfs) is mounted, and onto another EFS volume's
   * target -> ALREADY_EXISTS naming target_path (never OK with nothing mounted); onto "/" (outside the kubelet
   * directory) -> INVALID_ARGUMENT naming it; a repeat of a publish that succeeded -> OK; the same target read-only
   * -> ALREADY_EXISTS.
   */
  @Test
  void idempotencyComparesWhatIsMountedAtTheTarget() throws IOException {
    String id = accessPointVolume();
    Path otherTarget = published(accessPointVolume(), "other");
    for (Path target : new Path[] {Path.of("/"), tmpfs(), otherTarget}) {
      CsiAssert.refused(target.equals(Path.of("/")) ? Code.INVALID_ARGUMENT : Code.ALREADY_EXISTS, "target_path",
          () -> efs.node().nodePublishVolume(publish(id, target, RWX, false).build()));
    }
    assertThat(Files.readString(otherTarget.resolve("data.txt"))).isEqualTo("other");
    Path mine = published(id, "mine");
    CsiAssert.ok(() -> efs.node().nodePublishVolume(publish(id, mine, RWX, false).build()));
    CsiAssert.refused(Code.ALREADY_EXISTS, "target_path", () -> efs.node().nodePublishVolume(
        publish(id, mine, RWX, true).build()));
    assertThat(Files.readString(mine.resolve("data.txt"))).isEqualTo("mine");
  }

  /**
   * NodeUnpublishVolume of one volume at another volume's target or at a tmpfs -> FAILED_PRECONDITION naming
   * target_path; at "/" or /proc (outside the kubelet directory) -> INVALID_ARGUMENT naming it; nothing is unmounted.
   */
  @Test
  void unpublishUnmountsOnlyTheVolume() throws IOException {
    String id = accessPointVolume();
    Path otherTarget = published(accessPointVolume(), "other");
    Path tmpfs = tmpfs();
    for (Path target : new Path[] {otherTarget, tmpfs, Path.of("/"), Path.of("/proc")}) {
      CsiAssert.refused(target.startsWith(FX.kubeletDir()) ? Code.FAILED_PRECONDITION : Code.INVALID_ARGUMENT,
          "target_path", () -> efs.node().nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder()
              .setVolumeId(id).setTargetPath(target.toString()).build()));
    }
    assertThat(Files.readString(otherTarget.resolve("data.txt"))).isEqualTo("other");
    assertThat(HostCommands.mountAt(tmpfs)).isPresent();
    Path mine = published(id, "mine");
    CsiAssert.ok(() -> efs.node().nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(id)
        .setTargetPath(mine.toString()).build()));
    assertThat(mine).doesNotExist();
  }

  /**
   * NodeGetVolumeStats (stats opted in) of a volume at "/", at /proc or at another volume's target -> NOT_FOUND
   * naming volume_path (the host's root is never walked); at its own target -> OK.
   */
  @Test
  void statsAreOnlyOfTheVolumesOwnMount() throws IOException {
    String id = accessPointVolume();
    Path otherTarget = published(accessPointVolume(), "other");
    for (Path path : new Path[] {Path.of("/"), Path.of("/proc"), otherTarget}) {
      CsiAssert.refused(Code.NOT_FOUND, "volume_path", () -> efs.node().nodeGetVolumeStats(
          NodeGetVolumeStatsRequest.newBuilder().setVolumeId(id).setVolumePath(path.toString()).build()));
    }
    Path mine = published(id, "mine");
    CsiAssert.ok(() -> efs.node().nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder().setVolumeId(id)
        .setVolumePath(mine.toString()).build()));
  }

  /**
   * A tenant writes a symbolic link to a host directory into its volume. NodePublishVolume of the handle
   * {@code efs:<fs>:/escape/inner:<access point>} (a directory reached through the link) -> FAILED_PRECONDITION
   * naming the path, and of {@code efs:<fs>:/escape:<access point>} (the link itself) -> NOT_FOUND; the host
   * directory is never mounted into the pod (EFS resolves links inside the file system; the stand-in must too).
   */
  @Test
  void aSymbolicLinkInsideTheVolumeNeverLeadsOutOfIt() throws IOException {
    String id = accessPointVolume();
    Path mine = published(id, "mine");
    Path host = FX.newDirectory("host-secret-");
    Files.writeString(Files.createDirectories(host.resolve("inner")).resolve("secret"), "host data");
    Files.createSymbolicLink(mine.resolve("escape"), host);
    String[] parts = id.split(":");
    Path target = FX.newDirectory("pod-").resolve("mount");
    CsiAssert.refused(Code.FAILED_PRECONDITION, "/escape/inner", () -> efs.node().nodePublishVolume(
        publish("efs:" + parts[1] + ":/escape/inner:" + parts[3], target, RWX, false).build()));
    CsiAssert.refused(Code.NOT_FOUND, "/escape", () -> efs.node().nodePublishVolume(
        publish("efs:" + parts[1] + ":/escape:" + parts[3], target, RWX, false).build()));
    assertThat(HostCommands.mountAt(target)).isEmpty();
  }

  // ---- item 12b and hostile targets -----------------------------------------------------------------------------

  /**
   * NodePublishVolume onto a regular file or a symbolic link to a directory -> FAILED_PRECONDITION naming
   * target_path (never INTERNAL with mount's text); below /dev (outside the kubelet directory) -> INVALID_ARGUMENT
   * naming it; nothing is mounted.
   */
  @Test
  void targetsThatCannotHoldTheMountAreRefused() throws IOException {
    String id = accessPointVolume();
    Path dir = FX.newDirectory("hostile-");
    Path file = Files.writeString(dir.resolve("file"), "not a directory");
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), elsewhere);
    Path underDev = Path.of("/dev/aws-csi-adversarial-efs-" + ProcessHandle.current().pid());
    for (Path target : new Path[] {file, link, underDev}) {
      CsiAssert.refused(target == underDev ? Code.INVALID_ARGUMENT : Code.FAILED_PRECONDITION, "target_path",
          () -> efs.node().nodePublishVolume(publish(id, target, RWX, false).build()));
    }
    assertThat(HostCommands.mountAt(elsewhere)).isEmpty();
    assertThat(underDev).doesNotExist();
    assertThat(Files.readString(file)).isEqualTo("not a directory");
  }

  // ---- issue 24 item 4: node paths through symbolic links --------------------------------------------------------

  /**
   * A directory of the kubelet's tree replaced by a symbolic link to a host directory outside it.
   * NodePublishVolume through it -> INVALID_ARGUMENT naming target_path, nothing created or mounted outside;
   * NodeUnpublishVolume through it -> INVALID_ARGUMENT, the host's tmpfs there stays mounted; NodeGetVolumeStats
   * through it -> NOT_FOUND naming volume_path.
   */
  @Test
  void pathsThroughALinkedParentNeverLeaveTheKubeletDirectory() throws IOException {
    String id = accessPointVolume();
    Path mine = published(id, "mine");
    Path outside = FX.newDirectoryOutsideKubelet("host-");
    Path hostMount = Files.createDirectories(outside.resolve("mnt"));
    HostCommands.run("mount", "-t", "tmpfs", "-o", "size=1m", "adv-host", hostMount.toString());
    try {
      Path link = Files.createSymbolicLink(FX.newDirectory("linked-").resolve("volumes"), outside);
      CsiAssert.refused(Code.INVALID_ARGUMENT, "target_path", () -> efs.node().nodePublishVolume(
          publish(id, link.resolve("pod/mount"), RWX, false).build()));
      CsiAssert.refused(Code.INVALID_ARGUMENT, "target_path", () -> efs.node().nodeUnpublishVolume(
          NodeUnpublishVolumeRequest.newBuilder().setVolumeId(id).setTargetPath(link.resolve("mnt").toString())
              .build()));
      CsiAssert.refused(Code.NOT_FOUND, "volume_path", () -> efs.node().nodeGetVolumeStats(
          NodeGetVolumeStatsRequest.newBuilder().setVolumeId(id).setVolumePath(link.resolve("mnt").toString())
              .build()));
      try (var listing = Files.list(outside)) {
        assertThat(listing.map(Path::getFileName).map(Path::toString)).containsExactly("mnt");
      }
      assertThat(HostCommands.mountAt(hostMount)).as("the host's tmpfs").isPresent();
      assertThat(Files.readString(mine.resolve("data.txt"))).isEqualTo("mine");
    } finally {
      HostCommands.run("umount", hostMount.toString());
    }
  }

  /**
   * A node whose --kubelet-dir is itself a symbolic link (the kubelet's directory kept on another disk) keeps
   * working: a publish below the link -> OK, mounted at the resolved path, and its unpublish -> OK.
   */
  @Test
  void aKubeletDirectoryThatIsALinkKeepsWorking() throws IOException {
    Path linkedKubelet = Files.createSymbolicLink(FX.newDirectoryOutsideKubelet("kubelet-link-").resolve("kubelet"),
        FX.kubeletDir());
    DriverProcess node = FX.start(Driver.EFS, DriverFixture.Mode.NODE, "--kubelet-dir", linkedKubelet.toString());
    String id = accessPointVolume();
    Path pod = FX.newDirectory("pod-");
    Path target = linkedKubelet.resolve(pod.getFileName()).resolve("mount");
    CsiAssert.ok(() -> node.node().nodePublishVolume(publish(id, target, RWX, false).build()));
    assertThat(HostCommands.mountAt(pod.resolve("mount"))).as("mounted at the resolved path").isPresent();
    Files.writeString(pod.resolve("mount/data.txt"), "through the link");
    CsiAssert.ok(() -> node.node().nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(id)
        .setTargetPath(target.toString()).build()));
    assertThat(HostCommands.mountAt(pod.resolve("mount"))).isEmpty();
  }
}
