package io.awscsi.realism.ec2;

import java.time.Duration;
import java.time.Instant;

/**
 * A volume created from a snapshot (or copied) through the proxy: {@code initializing} in DescribeVolumeStatus from
 * {@code startedAt} until {@code completesAt}. {@code provisionedRate} is whether it was created with a
 * VolumeInitializationRate: EC2 then estimates the time left, otherwise it reports only the progress.
 */
public record VolumeInitializationProgress(String volumeId, Instant startedAt, Instant completesAt,
    boolean provisionedRate) {

  public boolean initializing(Instant now) {
    return now.isBefore(completesAt);
  }

  /** Percent done, 0 to 100, linear in time as EC2's fetch at a steady rate. */
  public int percentDone(Instant now) {
    long total = Duration.between(startedAt, completesAt).toMillis();
    if (total <= 0 || !initializing(now)) {
      return 100;
    }
    return (int) Math.clamp(Duration.between(startedAt, now).toMillis() * 100 / total, 0, 99);
  }

  public long secondsLeft(Instant now) {
    return initializing(now) ? Math.max(1, Duration.between(now, completesAt).toSeconds()) : 0;
  }
}
