package io.awscsi.e2e.adversarial;

import csi.v1.CapacityRange;
import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeCapability.AccessMode.Mode;
import java.util.List;
import java.util.Map;

/** Request pieces the adversarial tests share. */
public final class CsiRequests {

  private CsiRequests() {}

  public static VolumeCapability mount(String fsType, Mode mode, String... flags) {
    return VolumeCapability.newBuilder()
        .setMount(VolumeCapability.MountVolume.newBuilder().setFsType(fsType).addAllMountFlags(List.of(flags)))
        .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(mode)).build();
  }

  public static VolumeCapability block(Mode mode) {
    return VolumeCapability.newBuilder().setBlock(VolumeCapability.BlockVolume.getDefaultInstance())
        .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(mode)).build();
  }

  /** An EBS volume created and attached to the fixture's node: its id and publish context. */
  public record AttachedVolume(String volumeId, Map<String, String> publishContext) {}

  /** CreateVolume (1 GiB) then ControllerPublishVolume to the fixture's node, through {@code controller}. */
  public static AttachedVolume createAndAttach(DriverProcess controller, String nodeId, String name,
      VolumeCapability capability) {
    String id = CsiAssert.ok(() -> controller.controller().createVolume(CreateVolumeRequest.newBuilder()
        .setName(name).addVolumeCapabilities(capability)
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(1L << 30)).build())).getVolume().getVolumeId();
    Map<String, String> context = CsiAssert.ok(() -> controller.controller().controllerPublishVolume(
        ControllerPublishVolumeRequest.newBuilder().setVolumeId(id).setNodeId(nodeId).setVolumeCapability(capability)
            .build())).getPublishContextMap();
    return new AttachedVolume(id, context);
  }
}
