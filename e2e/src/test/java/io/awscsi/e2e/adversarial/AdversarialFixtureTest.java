package io.awscsi.e2e.adversarial;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.NodeGetInfoRequest;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.VolumeCapability.AccessMode.Mode;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.grpc.Status;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The fixture itself: a real driver process answers over its socket, survives SIGTERM and SIGKILL restarts. */
@Tag("integration")
class AdversarialFixtureTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  @Test
  void startsAnswersRefusesAndRestarts() {
    DriverProcess ebs = FX.start(Driver.EBS, DriverFixture.Mode.ALL);
    assertThat(CsiAssert.ok(() -> ebs.node().nodeGetInfo(NodeGetInfoRequest.getDefaultInstance())).getNodeId())
        .isEqualTo(FX.nodeId());
    // NodeStageVolume without volume_id -> INVALID_ARGUMENT naming volume_id.
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "volume_id", () -> ebs.node().nodeStageVolume(
        NodeStageVolumeRequest.newBuilder().setStagingTargetPath(FX.newDirectory("stage-").toString())
            .setVolumeCapability(CsiRequests.mount("ext4", Mode.SINGLE_NODE_WRITER)).build()));

    assertThat(ebs.sigterm(Duration.ofSeconds(60))).isIn(0, 143);
    assertThat(ebs.socket()).doesNotExist();
    ebs.start();
    ebs.sigkill();
    assertThat(ebs.socket()).as("SIGKILL leaves the socket behind").exists();
    ebs.start(); // replaces the stale socket
    assertThat(CsiAssert.ok(() -> ebs.node().nodeGetInfo(NodeGetInfoRequest.getDefaultInstance())).getNodeId())
        .isEqualTo(FX.nodeId());
    assertThat(ebs.log()).contains("=== fixture: ebs-all SIGKILL");
  }

  @Test
  void efsNodeAndControllerRunAsSeparateProcesses() {
    DriverProcess controller = FX.start(Driver.EFS, DriverFixture.Mode.CONTROLLER);
    DriverProcess node = FX.start(Driver.EFS, DriverFixture.Mode.NODE);
    assertThat(CsiAssert.ok(() -> node.node().nodeGetInfo(NodeGetInfoRequest.getDefaultInstance())).getNodeId())
        .isEqualTo(FX.nodeId());
    // The controller process serves no Node service.
    CsiAssert.refused(Status.Code.UNIMPLEMENTED, () -> controller.node().nodeGetInfo(
        NodeGetInfoRequest.getDefaultInstance()));
  }
}
