package io.awscsi.core.provider;

import java.util.Optional;

/** The node side of one driver; node capabilities are derived from the parts it offers. */
public interface NodeProvider {

  /** Computed once at startup (instance metadata) unless the provider refreshes it. */
  NodeInfo nodeInfo();

  VolumePublisher publisher();

  default Optional<VolumeStager> stager() {
    return Optional.empty();
  }

  default Optional<NodeVolumeExpander> expander() {
    return Optional.empty();
  }

  default Optional<VolumeStatsReader> stats() {
    return Optional.empty();
  }

  /** Whether publish honours a VolumeCapability's volume_mount_group (VOLUME_MOUNT_GROUP). */
  default boolean supportsVolumeMountGroup() {
    return false;
  }

  Readiness readiness();
}
