package io.awscsi.ebs.controller;

import java.time.Duration;
import java.util.Arrays;

/**
 * Polling delays for one kind of EC2 state change (creation, attach, detach, modification) that learn from how long
 * the recent ones took: the first poll comes at about the typical duration, later ones grow geometrically. Polls
 * are cheap thanks to batching, but each one still adds up to the batch delay to the caller's latency, so polling
 * neither too early nor too late is what keeps the tail short.
 */
final class AdaptiveBackoff {

  private static final int WINDOW = 64;

  private final Duration initial;
  private final Duration min;
  private final Duration max;
  private final double growth;
  private final long[] recentMillis = new long[WINDOW];
  private int count;

  AdaptiveBackoff(Duration initial, Duration min, Duration max, double growth) {
    this.initial = initial;
    this.min = min;
    this.max = max;
    this.growth = growth;
  }

  /** Records how long one change took from request to the observed final state. */
  synchronized void observed(Duration took) {
    recentMillis[count % WINDOW] = took.toMillis();
    count++;
  }

  /** The pause before poll {@code poll} (0-based). */
  Duration delay(int poll) {
    double first = firstDelayMillis();
    double d = first * Math.pow(growth, poll);
    return Duration.ofMillis((long) Math.clamp(d, min.toMillis(), max.toMillis()));
  }

  /** 80% of the recent median, so the first poll usually lands just after a typical change has finished. */
  synchronized double firstDelayMillis() {
    if (count < 8) {
      return initial.toMillis();
    }
    long[] window = Arrays.copyOf(recentMillis, Math.min(count, WINDOW));
    Arrays.sort(window);
    return Math.clamp(window[window.length / 2] * 0.8, min.toMillis(), max.toMillis());
  }
}
