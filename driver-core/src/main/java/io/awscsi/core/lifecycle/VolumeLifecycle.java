package io.awscsi.core.lifecycle;

import io.awscsi.core.errors.DriverError;

/**
 * The node's half of the CSI volume lifecycle as an explicit transition table: NODE_READY -> VOL_READY (NodeStage) ->
 * PUBLISHED (NodePublish) and back. For drivers without staging NODE_READY goes straight to PUBLISHED. The controller's
 * calls have no table: the controller keeps no state between calls, and EC2 or EFS answer for the volume.
 * It decides which repeated calls are idempotent successes and which calls are out of order, and with which code.
 * Teardown calls (unpublish, unstage) on a volume in an earlier state succeed: the spec makes them idempotent.
 */
public final class VolumeLifecycle {

  private final boolean stagingRequired;

  public VolumeLifecycle(boolean stagingRequired) {
    this.stagingRequired = stagingRequired;
  }

  public boolean stagingRequired() {
    return stagingRequired;
  }

  public Decision decide(VolumeState state, Operation op, Repeat repeat, String volumeId) {
    if (!stagingRequired && (op == Operation.NODE_STAGE || op == Operation.NODE_UNSTAGE)) {
      // Checked before the UNKNOWN shortcut: without staging these calls have no place in the lifecycle at all.
      String rpc = op == Operation.NODE_STAGE ? "NodeStageVolume" : "NodeUnstageVolume";
      return reject(new DriverError.Unimplemented(rpc + " is not offered by this driver: it publishes volumes without staging (no STAGE_UNSTAGE_VOLUME)"));
    }
    if (state == VolumeState.UNKNOWN) {
      return new Decision.Proceed(after(op));
    }
    return switch (op) {
      case NODE_STAGE -> switch (state) {
        case NODE_READY -> proceed(VolumeState.VOL_READY);
        default -> repeated(repeat, state, volumeId, "staged with another capability, device or staging path");
      };
      case NODE_PUBLISH -> switch (state) {
        case NODE_READY -> stagingRequired
            ? reject(new DriverError.FailedPrecondition("volume " + volumeId
                + " is not staged on this node: call NodeStageVolume first"))
            : proceed(VolumeState.PUBLISHED);
        case VOL_READY -> proceed(VolumeState.PUBLISHED);
        case PUBLISHED -> switch (repeat) {
          case FIRST -> proceed(VolumeState.PUBLISHED);
          case SAME -> new Decision.AlreadyDone();
          case CONFLICTING -> reject(new DriverError.AlreadyExists("volume " + volumeId
              + " is already published at this target_path with another capability or read-only flag"));
        };
        case UNKNOWN -> throw new IllegalStateException("handled above");
      };
      case NODE_UNPUBLISH -> switch (state) {
        case PUBLISHED -> proceed(stagingRequired ? VolumeState.VOL_READY : VolumeState.NODE_READY);
        default -> new Decision.AlreadyDone();
      };
      case NODE_UNSTAGE -> switch (state) {
        case PUBLISHED -> reject(new DriverError.FailedPrecondition("volume " + volumeId
            + " is still published on this node: unpublish every target path before NodeUnstageVolume"));
        case VOL_READY -> proceed(VolumeState.NODE_READY);
        default -> new Decision.AlreadyDone();
      };
    };
  }

  /** The state a call leads to when it succeeds from an unknown state. */
  private VolumeState after(Operation op) {
    return switch (op) {
      case NODE_STAGE -> VolumeState.VOL_READY;
      case NODE_PUBLISH -> VolumeState.PUBLISHED;
      case NODE_UNPUBLISH -> stagingRequired ? VolumeState.VOL_READY : VolumeState.NODE_READY;
      case NODE_UNSTAGE -> VolumeState.NODE_READY;
    };
  }

  private static Decision repeated(Repeat repeat, VolumeState state, String volumeId, String conflict) {
    return switch (repeat) {
      case SAME, FIRST -> new Decision.AlreadyDone();
      case CONFLICTING -> reject(new DriverError.AlreadyExists("volume " + volumeId + " is already " + conflict
          + " (state " + state + ")"));
    };
  }

  private static Decision proceed(VolumeState next) {
    return new Decision.Proceed(next);
  }

  private static Decision reject(DriverError error) {
    return new Decision.Reject(error);
  }
}
