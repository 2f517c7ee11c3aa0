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

  /**
   * The GroupController service's group snapshots; when present, the identity advertises GROUP_CONTROLLER_SERVICE
   * and the GroupController service is served beside the controller.
   */
  default Optional<GroupSnapshotManager> groupSnapshots() {
    return Optional.empty();
  }

  default Optional<VolumeLister> lister() {
    return Optional.empty();
  }

  /** The shapes of this driver's volume, snapshot and node ids, checked before any part is called. */
  default IdSyntax ids() {
    return IdSyntax.ANY;
  }

  /**
   * Readiness of the controller's dependencies: whether the cloud answered the driver's own recent calls. Must be
   * cheap and must not call the cloud itself (it is asked on every readiness probe).
   */
  Readiness readiness();
}
