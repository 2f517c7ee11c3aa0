package io.awscsi.ebs.cloud;

import java.time.Instant;

/** One attachment of a volume to an instance; {@code attachedAt} is when EC2 started it (may be null). */
public record Attachment(String volumeId, String instanceId, String device, State state, Instant attachedAt) {

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
