package io.awscsi.core.provider;

import java.util.List;
import java.util.Map;

/** CREATE_DELETE_VOLUME: every controller provider has one. */
public interface VolumeProvisioner {

  /**
   * Creates the volume or returns the one already created under {@code request.name()} when it is compatible;
   * an incompatible one is AlreadyExists. Must be safe to retry after a crash at any point.
   */
  Volume createVolume(VolumeRequest request);

  /** Deletes the volume; a volume that is already gone is success. */
  void deleteVolume(String volumeId, Map<String, String> secrets);

  /** NotFound when the volume does not exist; otherwise whether these capabilities are supported. */
  CapabilityCheck validateCapabilities(String volumeId, List<VolumeCapability> capabilities,
      Map<String, String> volumeContext, Map<String, String> parameters);

  /** Whether createVolume accepts a {@link VolumeSource.FromVolume} source (CLONE_VOLUME). */
  default boolean supportsCloning() {
    return false;
  }

  /** Whether createVolume accepts a {@link VolumeSource.FromSnapshot} source. */
  default boolean supportsSnapshotSource() {
    return false;
  }
}
