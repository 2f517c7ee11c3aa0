package io.awscsi.ebs.cloud;

import java.time.Instant;
import java.util.Map;

/** An EBS snapshot as EC2 last described it; {@code outpostArn} is empty for a snapshot in the region. */
public record DiskSnapshot(String snapshotId, String volumeId, int volumeSizeGiB, State state, Instant startedAt,
    String outpostArn, Map<String, String> tags) {

  /** EC2's snapshot states. */
  public enum State {
    PENDING, COMPLETED, ERROR, RECOVERABLE, RECOVERING;

    static State of(String ec2) {
      return switch (ec2 == null ? "" : ec2) {
        case "pending" -> PENDING;
        case "completed" -> COMPLETED;
        case "recoverable" -> RECOVERABLE;
        case "recovering" -> RECOVERING;
        default -> ERROR;
      };
    }
  }

  public DiskSnapshot {
    volumeId = volumeId == null ? "" : volumeId;
    outpostArn = outpostArn == null ? "" : outpostArn;
    tags = Map.copyOf(tags);
  }

  public String tag(String key) {
    return tags.getOrDefault(key, "");
  }
}
