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

  /**
   * The shape of this driver's volume ids, checked before any part is called: an id that cannot be one of the
   * driver's never reaches a path, a device name or a command.
   */
  default IdSyntax ids() {
    return IdSyntax.ANY;
  }

  /** Whether publish honours a VolumeCapability's volume_mount_group (VOLUME_MOUNT_GROUP). */
  default boolean supportsVolumeMountGroup() {
    return false;
  }

  Readiness readiness();
}
