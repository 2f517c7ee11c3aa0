package io.awscsi.realism.ec2;

import java.time.Duration;
import java.time.Instant;

/**
 * One ModifyVolume: {@code modifying} from {@code startTime}, {@code optimizing} from {@code optimizingAt} (the new
 * size is visible from then on), {@code completed} at {@code completedAt}.
 */
public record VolumeModification(String volumeId, VolumeConfig original, VolumeConfig target, Instant startTime,
                                 Instant optimizingAt, Instant completedAt) {

  public ModificationState state(Instant now) {
    if (now.isBefore(optimizingAt)) {
      return ModificationState.MODIFYING;
    }
    return now.isBefore(completedAt) ? ModificationState.OPTIMIZING : ModificationState.COMPLETED;
  }

  /** Percent done: 0 while modifying, rising while optimizing, 100 when completed. */
  public int progress(Instant now) {
    return switch (state(now)) {
      case MODIFYING -> 0;
      case COMPLETED -> 100;
      case OPTIMIZING -> {
        long total = Duration.between(optimizingAt, completedAt).toMillis();
        long done = Duration.between(optimizingAt, now).toMillis();
        yield total <= 0 ? 99 : (int) Math.min(99, Math.max(1, done * 100 / total));
      }
    };
  }
}
