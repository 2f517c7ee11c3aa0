package io.awscsi.realism.ec2;

import java.time.Duration;
import java.time.Instant;

/**
 * A snapshot taken through the proxy: {@code pending} with rising progress until {@code completedAt}.
 * {@code sharedStart}: taken by CreateSnapshots with others at one point in time, so describes report
 * {@code startTime} (the same for the whole set) rather than moto's own per-snapshot time.
 */
public record SnapshotProgress(String snapshotId, Instant startTime, Instant completedAt, boolean sharedStart) {

  public SnapshotProgress(String snapshotId, Instant startTime, Instant completedAt) {
    this(snapshotId, startTime, completedAt, false);
  }

  public boolean pending(Instant now) {
    return now.isBefore(completedAt);
  }

  public String status(Instant now) {
    return pending(now) ? "pending" : "completed";
  }

  /** Progress as EC2 writes it ({@code "42%"}). */
  public String progress(Instant now) {
    if (!pending(now)) {
      return "100%";
    }
    long total = Duration.between(startTime, completedAt).toMillis();
    long done = Duration.between(startTime, now).toMillis();
    return (total <= 0 ? 0 : Math.min(99, done * 100 / total)) + "%";
  }
}
