package io.awscsi.e2e.adversarial;

import static io.awscsi.e2e.adversarial.ControllerSupport.GIB;
import static io.awscsi.e2e.adversarial.ControllerSupport.MOUNT;
import static io.awscsi.e2e.adversarial.ControllerSupport.createVolume;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CapacityRange;
import csi.v1.ControllerExpandVolumeRequest;
import csi.v1.ControllerGetVolumeRequest;
import csi.v1.ControllerModifyVolumeRequest;
import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.ControllerUnpublishVolumeRequest;
import csi.v1.CreateSnapshotRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.ListVolumesRequest;
import csi.v1.ValidateVolumeCapabilitiesRequest;
import csi.v1.VolumeContentSource;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.awscsi.e2e.adversarial.DriverFixture.Mode;
import io.grpc.Status;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 12 item 3, controller side, over the sockets of the EBS controller (loop-device backend, as the local runtime
 * runs it) and the EFS controller: every RPC checks its ids once where the request enters. A malformed id is answered
 * at once, without an AWS call, with the spec's code: NOT_FOUND for lookups, OK for unpublish and delete ("already
 * gone"). The old code answered ControllerUnpublishVolume of vol-../../x with INTERNAL (IllegalArgumentException in
 * the loop backend).
 */
@Tag("integration")
class ControllerIdsTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  private static DriverProcess ebs;
  private static DriverProcess efs;

  @BeforeAll
  static void start() {
    ebs = FX.start(Driver.EBS, Mode.CONTROLLER);
    efs = FX.start(Driver.EFS, Mode.CONTROLLER);
  }

  /** Ids no EC2 could have issued: path climbing, shell, wildcards, case, length, unicode, other prefixes. */
  static List<String> malformedVolumeIds() {
    return List.of("vol-../../x", "vol-1;rm -rf /", "vol-*", "vol-0123456789ABCDEF0", "vol-0123456789abcdef01",
        "vol-", "snap-0123456789abcdef0", "../vol-0123456789abcdef0", "vol-0123456789abcdéf0", "VOL-12345678",
        "vol-12345678 ", "x".repeat(1024));
  }

  /** Each RPC with a malformed volume id -> NOT_FOUND (or OK for unpublish/delete), and no EC2 call at all. */
  @ParameterizedTest(name = "volume id \"{0}\"")
  @MethodSource("malformedVolumeIds")
  void everyEbsRpcAnswersAMalformedVolumeIdAtOnce(String id) {
    String node = FX.nodeId();
    long ec2Calls = FX.aws().stats().totalCalls();

    CsiAssert.ok(() -> ebs.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build()));
    CsiAssert.ok(() -> ebs.controller().controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder()
        .setVolumeId(id).setNodeId(node).build()));
    CsiAssert.refused(Status.Code.NOT_FOUND, "volume_id", () -> ebs.controller().controllerPublishVolume(
        ControllerPublishVolumeRequest.newBuilder().setVolumeId(id).setNodeId(node).setVolumeCapability(MOUNT)
            .build()));
    CsiAssert.refused(Status.Code.NOT_FOUND, "volume_id", () -> ebs.controller().validateVolumeCapabilities(
        ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId(id).addVolumeCapabilities(MOUNT).build()));
    CsiAssert.refused(Status.Code.NOT_FOUND, "volume_id", () -> ebs.controller().controllerExpandVolume(
        ControllerExpandVolumeRequest.newBuilder().setVolumeId(id)
            .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(2 * GIB)).build()));
    CsiAssert.refused(Status.Code.NOT_FOUND, "volume_id", () -> ebs.controller().controllerModifyVolume(
        ControllerModifyVolumeRequest.newBuilder().setVolumeId(id).putMutableParams("iops", "4000").build()));
    CsiAssert.refused(Status.Code.NOT_FOUND, "volume_id", () -> ebs.controller().controllerGetVolume(
        ControllerGetVolumeRequest.newBuilder().setVolumeId(id).build()));
    CsiAssert.refused(Status.Code.NOT_FOUND, "source_volume_id", () -> ebs.controller().createSnapshot(
        CreateSnapshotRequest.newBuilder().setName("snap-of-bad").setSourceVolumeId(id).build()));
    CsiAssert.refused(Status.Code.NOT_FOUND, "volume_content_source.volume.volume_id", () -> ebs.controller()
        .createVolume(createVolume("pvc-clone-of-bad").setVolumeContentSource(VolumeContentSource.newBuilder()
            .setVolume(VolumeContentSource.VolumeSource.newBuilder().setVolumeId(id))).build()));
    assertThat(CsiAssert.ok(() -> ebs.controller().listSnapshots(ListSnapshotsRequest.newBuilder()
        .setSourceVolumeId(id).build())).getEntriesList()).isEmpty();

    assertThat(FX.aws().stats().totalCalls()).as("no AWS call for an id that cannot exist").isEqualTo(ec2Calls);
  }

  static List<String> malformedSnapshotAndNodeIds() {
    return List.of("snap-../../x", "i-../../etc", "snap-*", "i-*", "vol-0123456789abcdef0", "", "snap- 1");
  }

  /** Malformed snapshot ids -> NOT_FOUND at restore, OK at delete, empty at list; malformed nodes -> NOT_FOUND. */
  @ParameterizedTest(name = "snapshot or node id \"{0}\"")
  @MethodSource("malformedSnapshotAndNodeIds")
  void malformedSnapshotAndNodeIdsAreAnsweredAtOnce(String id) {
    String volume = CsiAssert.ok(() -> ebs.controller().createVolume(createVolume("pvc-ids-" + Math.abs(
        id.hashCode())).setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB)).build()))
        .getVolume().getVolumeId();
    long ec2Calls = FX.aws().stats().totalCalls();
    if (id.isEmpty()) {
      CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "snapshot_id", () -> ebs.controller().deleteSnapshot(
          DeleteSnapshotRequest.getDefaultInstance()));
      CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "node_id", () -> ebs.controller().controllerPublishVolume(
          ControllerPublishVolumeRequest.newBuilder().setVolumeId(volume).setVolumeCapability(MOUNT).build()));
      return;
    }
    CsiAssert.ok(() -> ebs.controller().deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(id)
        .build()));
    assertThat(CsiAssert.ok(() -> ebs.controller().listSnapshots(ListSnapshotsRequest.newBuilder()
        .setSnapshotId(id).build())).getEntriesList()).isEmpty();
    CsiAssert.refused(Status.Code.NOT_FOUND, "volume_content_source.snapshot.snapshot_id", () -> ebs.controller()
        .createVolume(createVolume("pvc-restore-of-bad").setVolumeContentSource(VolumeContentSource.newBuilder()
            .setSnapshot(VolumeContentSource.SnapshotSource.newBuilder().setSnapshotId(id))).build()));
    CsiAssert.refused(Status.Code.NOT_FOUND, "node_id", () -> ebs.controller().controllerPublishVolume(
        ControllerPublishVolumeRequest.newBuilder().setVolumeId(volume).setNodeId(id).setVolumeCapability(MOUNT)
            .build()));
    CsiAssert.ok(() -> ebs.controller().controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder()
        .setVolumeId(volume).setNodeId(id).build()));

    assertThat(FX.aws().stats().totalCalls()).isEqualTo(ec2Calls);
  }

  static List<String> wellFormedButUnknown() {
    return List.of("vol-0123456789abcdef0", "vol-deadbeef");
  }

  /** Ids of the right shape that EC2 does not know -> NOT_FOUND for lookups, OK for unpublish and delete. */
  @ParameterizedTest(name = "unknown volume {0}")
  @MethodSource("wellFormedButUnknown")
  void unknownVolumesAreNotFoundOrAlreadyGone(String id) {
    CsiAssert.ok(() -> ebs.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build()));
    CsiAssert.ok(() -> ebs.controller().controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder()
        .setVolumeId(id).setNodeId(FX.nodeId()).build()));
    CsiAssert.refused(Status.Code.NOT_FOUND, () -> ebs.controller().controllerPublishVolume(
        ControllerPublishVolumeRequest.newBuilder().setVolumeId(id).setNodeId(FX.nodeId())
            .setVolumeCapability(MOUNT).build()));
    CsiAssert.refused(Status.Code.NOT_FOUND, () -> ebs.controller().controllerGetVolume(
        ControllerGetVolumeRequest.newBuilder().setVolumeId(id).build()));
    CsiAssert.refused(Status.Code.NOT_FOUND, () -> ebs.controller().controllerExpandVolume(
        ControllerExpandVolumeRequest.newBuilder().setVolumeId(id)
            .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB)).build()));
  }

  /** ControllerPublishVolume to an instance EC2 does not know -> NOT_FOUND naming the node; nothing attached. */
  @ParameterizedTest(name = "unknown node {0}")
  @MethodSource("unknownNodes")
  void publishToAnUnknownInstanceIsNotFound(String node) {
    String volume = CsiAssert.ok(() -> ebs.controller().createVolume(createVolume("pvc-unknown-node-" + node)
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB)).build())).getVolume().getVolumeId();

    CsiAssert.refused(Status.Code.NOT_FOUND, node, () -> ebs.controller().controllerPublishVolume(
        ControllerPublishVolumeRequest.newBuilder().setVolumeId(volume).setNodeId(node).setVolumeCapability(MOUNT)
            .build()));
    CsiAssert.ok(() -> ebs.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(volume)
        .build()));
  }

  static List<String> unknownNodes() {
    return List.of("i-0123456789abcdef0", "i-deadbeef");
  }

  /** A List call's token no listing returned (forged, control characters, huge) -> ABORTED. */
  @ParameterizedTest(name = "starting_token \"{0}\"")
  @MethodSource("forgedTokens")
  void forgedStartingTokensAreAborted(String token) {
    CsiAssert.refused(Status.Code.ABORTED, "starting_token", () -> ebs.controller().listVolumes(
        ListVolumesRequest.newBuilder().setStartingToken(token).build()));
    CsiAssert.refused(Status.Code.ABORTED, "starting_token", () -> ebs.controller().listSnapshots(
        ListSnapshotsRequest.newBuilder().setStartingToken(token).build()));
  }

  static List<String> forgedTokens() {
    return List.of("not-a-token", "ZWJzMXw5OTk5OTk5OTk5OTk5fA", "ZWJzMXwtMXw", "tok\nen", "t".repeat(2000),
        "ZWJzMXwwfG5vdC1hbi1lYzItdG9rZW4");
  }

  static List<String> malformedEfsIds() {
    return List.of("vol-0123456789abcdef0", "fs-../../etc", "efs:fs-0123abcd::fsap-../x", "s3files:fs-0123abcd",
        "efs:fs-0123abcd:/a:fsap-0123abcd:extra", "fs-0123ABCD");
  }

  /** EFS: a volume id that is no EFS handle -> OK at DeleteVolume, NOT_FOUND at ValidateVolumeCapabilities. */
  @ParameterizedTest(name = "EFS volume id \"{0}\"")
  @MethodSource("malformedEfsIds")
  void efsAnswersMalformedHandlesAtOnce(String id) {
    long calls = FX.aws().stats().totalCalls();

    CsiAssert.ok(() -> efs.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build()));
    CsiAssert.refused(Status.Code.NOT_FOUND, "volume_id", () -> efs.controller().validateVolumeCapabilities(
        ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId(id).addVolumeCapabilities(MOUNT).build()));

    assertThat(FX.aws().stats().totalCalls()).isEqualTo(calls);
  }

  /** Publish to this node, unpublish with a malformed id on the same loop backend -> OK; the real one detaches. */
  @Test
  void theLoopBackendNeverSeesAMalformedIdAtUnpublish() {
    var attached = CsiRequests.createAndAttach(ebs, FX.nodeId(), "pvc-loop-attach", MOUNT);
    List<?> loopsBefore = FX.loopDevicesBelowWork();

    CsiAssert.ok(() -> ebs.controller().controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder()
        .setVolumeId("vol-../../x").setNodeId(FX.nodeId()).build()));
    CsiAssert.ok(() -> ebs.controller().controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder()
        .setVolumeId("vol-../../x").build()));

    assertThat(FX.loopDevicesBelowWork()).isEqualTo(loopsBefore).isNotEmpty();
    CsiAssert.ok(() -> ebs.controller().controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder()
        .setVolumeId(attached.volumeId()).setNodeId(FX.nodeId()).build()));
    CsiAssert.ok(() -> ebs.controller().deleteVolume(DeleteVolumeRequest.newBuilder()
        .setVolumeId(attached.volumeId()).build()));
    assertThat(FX.loopDevicesBelowWork()).as("detached").hasSize(loopsBefore.size() - 1);
  }
}
