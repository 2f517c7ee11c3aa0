package io.awscsi.ebs.cloud;

import java.time.Instant;
import java.util.OptionalInt;

/**
 * One attachment of a volume to an instance; {@code attachedAt} is when EC2 started it (may be null); {@code ebsCard}
 * is the EBS card it uses on an instance type with several cards (EC2's {@code EbsCardIndex}), empty otherwise.
 */
public record Attachment(String volumeId, String instanceId, String device, State state, Instant attachedAt,
    OptionalInt ebsCard) {

  /** An attachment without a card index (an instance type with one EBS card). */
  public Attachment(String volumeId, String instanceId, String device, State state, Instant attachedAt) {
    this(volumeId, instanceId, device, state, attachedAt, OptionalInt.empty());
  }

  /** EC2's attachment states. */
  public enum State {
    ATTACHING, ATTACHED, DETACHING, DETACHED, BUSY;

    static State of(String ec2) {
      return switch (ec2 == null ? "" : ec2) {
        case "attaching" -> ATTACHING;
        case "attached" -> ATTACHED;
        case "detaching" -> DETACHING;
        case "busy" -> BUSY;
        default -> DETACHED;
      };
    }
  }
}
