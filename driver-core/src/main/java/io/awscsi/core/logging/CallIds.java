package io.awscsi.core.logging;

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
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.NodeUnpublishVolumeRequest;
import csi.v1.NodeUnstageVolumeRequest;
import csi.v1.ValidateVolumeCapabilitiesRequest;

/**
 * The ids a call's log line names: the volume (or the snapshot a snapshot call is about), the node, the requested
 * name. Read through the generated accessors, not protobuf descriptors: building csi.proto's descriptors costs a cold
 * node plugin ~70 ms and ~1 MiB, and only the debug log's request bodies need them.
 */
record CallIds(String volumeId, String nodeId, String name) {

  static final CallIds NONE = new CallIds("", "", "");

  static CallIds of(Object request) {
    return switch (request) {
      case CreateVolumeRequest r -> new CallIds("", "", r.getName());
      case DeleteVolumeRequest r -> volume(r.getVolumeId());
      case ControllerPublishVolumeRequest r -> new CallIds(r.getVolumeId(), r.getNodeId(), "");
      case ControllerUnpublishVolumeRequest r -> new CallIds(r.getVolumeId(), r.getNodeId(), "");
      case ValidateVolumeCapabilitiesRequest r -> volume(r.getVolumeId());
      case ControllerExpandVolumeRequest r -> volume(r.getVolumeId());
      case ControllerModifyVolumeRequest r -> volume(r.getVolumeId());
      case ControllerGetVolumeRequest r -> volume(r.getVolumeId());
      case CreateSnapshotRequest r -> new CallIds(r.getSourceVolumeId(), "", r.getName());
      case DeleteSnapshotRequest r -> volume(r.getSnapshotId());
      case ListSnapshotsRequest r -> volume(r.getSourceVolumeId().isEmpty() ? r.getSnapshotId() : r.getSourceVolumeId());
      case NodeStageVolumeRequest r -> volume(r.getVolumeId());
      case NodeUnstageVolumeRequest r -> volume(r.getVolumeId());
      case NodePublishVolumeRequest r -> volume(r.getVolumeId());
      case NodeUnpublishVolumeRequest r -> volume(r.getVolumeId());
      case NodeGetVolumeStatsRequest r -> volume(r.getVolumeId());
      case NodeExpandVolumeRequest r -> volume(r.getVolumeId());
      case null, default -> NONE;
    };
  }

  private static CallIds volume(String volumeId) {
    return new CallIds(volumeId, "", "");
  }
}
