package io.awscsi.core.provider;

import java.util.Optional;

/**
 * The controller side of one driver. Capabilities are derived from the parts a provider offers, so a capability is
 * advertised exactly when the code behind it exists.
 */
public interface ControllerProvider {

  VolumeProvisioner provisioner();

  default Optional<VolumeAttacher> attacher() {
    return Optional.empty();
  }

  default Optional<VolumeExpander> expander() {
    return Optional.empty();
  }

  default Optional<VolumeModifier> modifier() {
    return Optional.empty();
  }

  default Optional<SnapshotManager> snapshots() {
    return Optional.empty();
  }

  default Optional<VolumeLister> lister() {
    return Optional.empty();
  }

  /** Readiness of the controller's dependencies (cloud API reachable, credentials valid). */
  Readiness readiness();
}
