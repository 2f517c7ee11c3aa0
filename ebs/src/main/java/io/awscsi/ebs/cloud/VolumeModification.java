package io.awscsi.ebs.cloud;

import java.time.Instant;

/**
 * One ModifyVolume of a volume and where it stands; target fields are 0 or empty when EC2 does not report them.
 */
public record VolumeModification(String volumeId, State state, int targetSizeGiB, String targetType, int targetIops,
    int targetThroughput, Instant startedAt, String statusMessage) {

  /** EC2's modification states. */
  public enum State {
    MODIFYING, OPTIMIZING, COMPLETED, FAILED;

    static State of(String ec2) {
      return switch (ec2 == null ? "" : ec2) {
        case "modifying" -> MODIFYING;
        case "optimizing" -> OPTIMIZING;
        case "completed" -> COMPLETED;
        default -> FAILED;
      };
    }

    /** The new size and type are usable once EC2 reaches optimizing. */
    public boolean usable() {
      return this == OPTIMIZING || this == COMPLETED;
    }
  }

  public VolumeModification {
    targetType = targetType == null ? "" : targetType;
    statusMessage = statusMessage == null ? "" : statusMessage;
  }
}
