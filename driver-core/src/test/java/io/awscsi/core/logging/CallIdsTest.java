package io.awscsi.core.logging;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.ControllerExpandVolumeRequest;
import csi.v1.ControllerGetVolumeRequest;
import csi.v1.ControllerModifyVolumeRequest;
import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.ControllerUnpublishVolumeRequest;
import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.ListVolumesRequest;
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.NodeUnpublishVolumeRequest;
import csi.v1.NodeUnstageVolumeRequest;
import csi.v1.ProbeRequest;
import csi.v1.ValidateVolumeCapabilitiesRequest;
import org.junit.jupiter.api.Test;

class CallIdsTest {

  @Test
  void volumeCallsNameTheirVolume() {
    assertThat(CallIds.of(DeleteVolumeRequest.newBuilder().setVolumeId("vol-1").build()).volumeId()).isEqualTo("vol-1");
    assertThat(CallIds.of(ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId("vol-2").build()).volumeId())
        .isEqualTo("vol-2");
    assertThat(CallIds.of(ControllerExpandVolumeRequest.newBuilder().setVolumeId("vol-3").build()).volumeId())
        .isEqualTo("vol-3");
    assertThat(CallIds.of(ControllerModifyVolumeRequest.newBuilder().setVolumeId("vol-4").build()).volumeId())
        .isEqualTo("vol-4");
    assertThat(CallIds.of(ControllerGetVolumeRequest.newBuilder().setVolumeId("vol-5").build()).volumeId())
        .isEqualTo("vol-5");
    assertThat(CallIds.of(NodeStageVolumeRequest.newBuilder().setVolumeId("vol-6").build()).volumeId())
        .isEqualTo("vol-6");
    assertThat(CallIds.of(NodeUnstageVolumeRequest.newBuilder().setVolumeId("vol-7").build()).volumeId())
        .isEqualTo("vol-7");
    assertThat(CallIds.of(NodePublishVolumeRequest.newBuilder().setVolumeId("vol-8").build()).volumeId())
        .isEqualTo("vol-8");
    assertThat(CallIds.of(NodeUnpublishVolumeRequest.newBuilder().setVolumeId("vol-9").build()).volumeId())
        .isEqualTo("vol-9");
    assertThat(CallIds.of(NodeGetVolumeStatsRequest.newBuilder().setVolumeId("vol-10").build()).volumeId())
        .isEqualTo("vol-10");
    assertThat(CallIds.of(NodeExpandVolumeRequest.newBuilder().setVolumeId("vol-11").build()).volumeId())
        .isEqualTo("vol-11");
  }

  @Test
  void publishCallsNameVolumeAndNode() {
    assertThat(CallIds.of(ControllerPublishVolumeRequest.newBuilder().setVolumeId("vol-1").setNodeId("i-1").build()))
        .isEqualTo(new CallIds("vol-1", "i-1", ""));
    assertThat(CallIds.of(ControllerUnpublishVolumeRequest.newBuilder().setVolumeId("vol-2").setNodeId("i-2")
        .build())).isEqualTo(new CallIds("vol-2", "i-2", ""));
  }

  @Test
  void creationsNameTheRequestedNameAndSnapshotsTheirSource() {
    assertThat(CallIds.of(CreateVolumeRequest.newBuilder().setName("pvc-1").build()))
        .isEqualTo(new CallIds("", "", "pvc-1"));
    assertThat(CallIds.of(CreateSnapshotRequest.newBuilder().setName("snapshot-1").setSourceVolumeId("vol-1")
        .build())).isEqualTo(new CallIds("vol-1", "", "snapshot-1"));
    assertThat(CallIds.of(DeleteSnapshotRequest.newBuilder().setSnapshotId("snap-1").build()).volumeId())
        .isEqualTo("snap-1");
    assertThat(CallIds.of(ListSnapshotsRequest.newBuilder().setSnapshotId("snap-2").build()).volumeId())
        .isEqualTo("snap-2");
    assertThat(CallIds.of(ListSnapshotsRequest.newBuilder().setSourceVolumeId("vol-3").setSnapshotId("snap-3")
        .build()).volumeId()).isEqualTo("vol-3");
  }

  @Test
  void callsWithoutIdsNameNothing() {
    assertThat(CallIds.of(ProbeRequest.getDefaultInstance())).isEqualTo(CallIds.NONE);
    assertThat(CallIds.of(ListVolumesRequest.getDefaultInstance())).isEqualTo(CallIds.NONE);
    assertThat(CallIds.of(null)).isEqualTo(CallIds.NONE);
  }
}
