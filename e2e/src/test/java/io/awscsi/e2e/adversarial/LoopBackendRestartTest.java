package io.awscsi.e2e.adversarial;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.NodeGetInfoRequest;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.NodeUnstageVolumeRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeCapability.AccessMode.Mode;
import io.awscsi.e2e.adversarial.CsiRequests.AttachedVolume;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Item 8: the loop-device backend of a serving driver never loses data. The built driver is stopped by SIGTERM and by
 * SIGKILL and started again, as the cluster suite restarts node plugins; a second start on the same endpoint is
 * refused and touches nothing.
 */
@Tag("integration")
class LoopBackendRestartTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  private static final VolumeCapability EXT4 = CsiRequests.mount("ext4", Mode.SINGLE_NODE_WRITER);

  private record Volume(AttachedVolume attached, Path staging, Path target) {
    String id() {
      return attached.volumeId();
    }
  }

  private static Volume stageAndPublish(DriverProcess controller, DriverProcess node, String name, String content)
      throws IOException {
    AttachedVolume v = CsiRequests.createAndAttach(controller, FX.nodeId(), name, EXT4);
    Path staging = FX.newDirectory("staging-").resolve("globalmount");
    Path target = FX.newDirectory("pod-").resolve("mount");
    Volume volume = new Volume(v, staging, target);
    stage(node, volume);
    publish(node, volume);
    Files.writeString(target.resolve("data.txt"), content);
    return volume;
  }

  private static void stage(DriverProcess node, Volume v) {
    CsiAssert.ok(() -> node.node().nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(v.id())
        .putAllPublishContext(v.attached().publishContext()).setStagingTargetPath(v.staging().toString())
        .setVolumeCapability(EXT4).build()));
  }

  private static void publish(DriverProcess node, Volume v) {
    CsiAssert.ok(() -> node.node().nodePublishVolume(NodePublishVolumeRequest.newBuilder().setVolumeId(v.id())
        .putAllPublishContext(v.attached().publishContext()).setStagingTargetPath(v.staging().toString())
        .setTargetPath(v.target().toString()).setVolumeCapability(EXT4).build()));
  }

  private static Path backingFile(String volumeId) {
    return FX.loopStateDir().resolve("volumes").resolve(volumeId + ".img");
  }

  /**
   * Volume A staged and published, volume B written then unstaged (attached only). SIGTERM of the ebs-all driver
   * (exit 143), start again: both backing files are there; NodeStageVolume + NodePublishVolume of A (repeats) -> OK
   * and A's file reads back; NodeStageVolume of B -> OK (no mkfs: the file system is kept) and B's file reads back.
   * Then SIGKILL and start again: the same.
   */
  @Test
  void sigtermAndSigkillOfTheServingDriverKeepEveryVolumesData() throws IOException {
    DriverProcess ebs = FX.start(Driver.EBS, DriverFixture.Mode.ALL);
    Volume a = stageAndPublish(ebs, ebs, "restart-a", "volume a");
    Volume b = stageAndPublish(ebs, ebs, "restart-b", "volume b");
    CsiAssert.ok(() -> ebs.node().nodeUnpublishVolume(csi.v1.NodeUnpublishVolumeRequest.newBuilder()
        .setVolumeId(b.id()).setTargetPath(b.target().toString()).build()));
    CsiAssert.ok(() -> ebs.node().nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder().setVolumeId(b.id())
        .setStagingTargetPath(b.staging().toString()).build()));

    assertThat(ebs.sigterm(Duration.ofSeconds(60))).isIn(0, 143);
    assertThat(backingFile(a.id())).as("A's backing file after SIGTERM").exists();
    assertThat(backingFile(b.id())).as("B's backing file after SIGTERM").exists();
    ebs.start();
    assertDataIsThere(ebs, a, b, "SIGTERM");

    ebs.sigkill();
    ebs.start();
    assertDataIsThere(ebs, a, b, "SIGKILL");
  }

  private static void assertDataIsThere(DriverProcess ebs, Volume a, Volume b, String after) throws IOException {
    stage(ebs, a);
    publish(ebs, a);
    assertThat(Files.readString(a.target().resolve("data.txt"))).as("A after " + after).isEqualTo("volume a");
    // The controller re-attaches B as after a node restart (ControllerPublishVolume repeats are OK).
    CsiAssert.ok(() -> ebs.controller().controllerPublishVolume(ControllerPublishVolumeRequest.newBuilder()
        .setVolumeId(b.id()).setNodeId(FX.nodeId()).setVolumeCapability(EXT4).build()));
    stage(ebs, b);
    publish(ebs, b);
    assertThat(Files.readString(b.target().resolve("data.txt"))).as("B after " + after).isEqualTo("volume b");
  }

  /**
   * A second driver started with the same --endpoint and --loop-state-dir while the first serves -> exit code 2 and
   * one line naming the endpoint; afterwards the first driver's loop devices, backing files and staged data are
   * exactly as they were, and it still answers.
   */
  @Test
  void aRefusedSecondStartTouchesNothing() throws IOException {
    DriverProcess ebs = FX.start(Driver.EBS, DriverFixture.Mode.ALL);
    Volume a = stageAndPublish(ebs, ebs, "second-start-a", "still here");
    List<Path> loopsBefore = FX.loopDevicesBelowWork();

    DriverFixture.Run second = FX.run(Duration.ofSeconds(90), "emulated", "--driver", "ebs", "--mode", "all",
        "--endpoint", "unix://" + ebs.socket(), "--device-backend", "loop", "--loop-state-dir",
        FX.loopStateDir().toString());

    assertThat(second.exitCode()).as(second.output()).isEqualTo(2);
    assertThat(second.output()).contains(ebs.socket().toString()).contains("another process is serving");
    assertThat(FX.loopDevicesBelowWork()).containsExactlyInAnyOrderElementsOf(loopsBefore);
    assertThat(backingFile(a.id())).exists();
    assertThat(Files.readString(a.target().resolve("data.txt"))).isEqualTo("still here");
    assertThat(CsiAssert.ok(() -> ebs.node().nodeGetInfo(NodeGetInfoRequest.getDefaultInstance())).getNodeId())
        .isEqualTo(FX.nodeId());
  }

  /**
   * The cluster's shape: a controller process and a node process over one loop state directory. The node plugin is
   * stopped by SIGTERM, then by SIGKILL, and started again each time; NodeStageVolume / NodePublishVolume repeats ->
   * OK and the data is there; the controller restarted by SIGKILL answers ControllerPublishVolume repeats -> OK.
   */
  @Test
  void nodePluginRestartsBesideASeparateControllerKeepData() throws IOException {
    DriverProcess controller = FX.start(Driver.EBS, DriverFixture.Mode.CONTROLLER);
    DriverProcess node = FX.start(Driver.EBS, DriverFixture.Mode.NODE);
    Volume v = stageAndPublish(controller, node, "split-a", "split");
    for (boolean kill : new boolean[] {false, true}) {
      if (kill) {
        node.sigkill();
      } else {
        assertThat(node.sigterm(Duration.ofSeconds(60))).isIn(0, 143);
      }
      assertThat(backingFile(v.id())).exists();
      node.start();
      stage(node, v);
      publish(node, v);
      assertThat(Files.readString(v.target().resolve("data.txt"))).isEqualTo("split");
    }
    controller.sigkill();
    controller.start();
    CsiAssert.ok(() -> controller.controller().controllerPublishVolume(ControllerPublishVolumeRequest.newBuilder()
        .setVolumeId(v.id()).setNodeId(FX.nodeId()).setVolumeCapability(EXT4).build()));
    assertThat(Files.readString(v.target().resolve("data.txt"))).isEqualTo("split");
  }
}
