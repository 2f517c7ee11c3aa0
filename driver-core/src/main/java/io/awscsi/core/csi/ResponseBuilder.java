package io.awscsi.core.csi;

import csi.v1.Topology;
import csi.v1.VolumeContentSource;
import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.GroupSnapshot;
import io.awscsi.core.provider.Snapshot;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeSource;
import com.google.protobuf.Timestamp;

/** Records back to proto messages. */
final class ResponseBuilder {

  private ResponseBuilder() {}

  static csi.v1.Volume volume(Volume v) {
    csi.v1.Volume.Builder b = csi.v1.Volume.newBuilder()
        .setVolumeId(v.volumeId())
        .setCapacityBytes(v.capacityBytes())
        .putAllVolumeContext(v.volumeContext());
    v.accessibleTopology().forEach(t -> b.addAccessibleTopology(Topology.newBuilder().putAllSegments(t)));
    switch (v.source()) {
      case VolumeSource.FromSnapshot s -> b.setContentSource(VolumeContentSource.newBuilder()
          .setSnapshot(VolumeContentSource.SnapshotSource.newBuilder().setSnapshotId(s.snapshotId())));
      case VolumeSource.FromVolume s -> b.setContentSource(VolumeContentSource.newBuilder()
          .setVolume(VolumeContentSource.VolumeSource.newBuilder().setVolumeId(s.volumeId())));
      case VolumeSource.Empty e -> { }
      case null -> { }
    }
    return b.build();
  }

  static csi.v1.Snapshot snapshot(Snapshot s) {
    csi.v1.Snapshot.Builder b = csi.v1.Snapshot.newBuilder()
        .setSnapshotId(s.snapshotId())
        .setSourceVolumeId(s.sourceVolumeId())
        .setSizeBytes(s.sizeBytes())
        .setReadyToUse(s.readyToUse())
        .setGroupSnapshotId(s.groupSnapshotId());
    if (s.createdAt() != null) {
      b.setCreationTime(Timestamp.newBuilder().setSeconds(s.createdAt().getEpochSecond())
          .setNanos(s.createdAt().getNano()));
    }
    return b.build();
  }

  static csi.v1.VolumeGroupSnapshot groupSnapshot(GroupSnapshot g) {
    csi.v1.VolumeGroupSnapshot.Builder b = csi.v1.VolumeGroupSnapshot.newBuilder()
        .setGroupSnapshotId(g.groupSnapshotId())
        .setReadyToUse(g.readyToUse());
    g.snapshots().forEach(s -> b.addSnapshots(snapshot(s)));
    if (g.createdAt() != null) {
      b.setCreationTime(Timestamp.newBuilder().setSeconds(g.createdAt().getEpochSecond())
          .setNanos(g.createdAt().getNano()));
    }
    return b.build();
  }

  static csi.v1.VolumeCapability capability(VolumeCapability c) {
    csi.v1.VolumeCapability.Builder b = csi.v1.VolumeCapability.newBuilder()
        .setAccessMode(csi.v1.VolumeCapability.AccessMode.newBuilder()
            .setMode(csi.v1.VolumeCapability.AccessMode.Mode.valueOf(c.accessMode().name())));
    switch (c.accessType()) {
      case AccessType.Block bl -> b.setBlock(csi.v1.VolumeCapability.BlockVolume.getDefaultInstance());
      case AccessType.Mount m -> b.setMount(csi.v1.VolumeCapability.MountVolume.newBuilder()
          .setFsType(m.fsType()).addAllMountFlags(m.mountFlags()).setVolumeMountGroup(m.volumeMountGroup()));
    }
    return b.build();
  }

}
