package io.awscsi.ebs.controller;

import java.time.Duration;
import java.util.Arrays;

/**
 * Polling delays for one kind of EC2 state change (creation, attach, detach, modification) that learn from how long
 * the recent ones took: the first poll comes at about 80% of the typical duration, then polls follow at the batch
 * interval for a few seconds and only then spread out. Polls cost almost nothing under load (they join a batched Describe call that is
 * made anyway), so fine-grained polling after the first is what keeps the latency tail short.
 */
final class AdaptiveBackoff {

  private static final int WINDOW = 64;
  /**
   * Polls after the first that keep the plain step, covering the usual spread of EC2's latency. The step is below the
   * batch interval on purpose: the batcher paces the Describe calls, so a poll simply joins the next batch and the
   * change is seen one batch after it happened.
   */
  private static final int FLAT_POLLS = 16;

  private final Duration initial;
  private final Duration min;
  private final Duration max;
  private final Duration step;
  private final double growth;
  private final long[] recentMillis = new long[WINDOW];
  private int count;

  /**
   * @param initial first poll until enough changes were observed
   * @param min smallest pause
   * @param max largest pause
   * @param step pause after the first poll (about the batch interval)
   * @param growth factor by which later pauses grow
   */
  AdaptiveBackoff(Duration initial, Duration min, Duration max, Duration step, double growth) {
    this.initial = initial;
    this.min = min;
    this.max = max;
    this.step = step;
    this.growth = growth;
  }

  /** Records how long one change took from request to the observed final state. */
  synchronized void observed(Duration took) {
    recentMillis[count % WINDOW] = took.toMillis();
    count++;
  }

  /** The pause before poll {@code poll} (0-based). */
  Duration delay(int poll) {
    double d = poll == 0 ? firstDelayMillis()
        : step.toMillis() * Math.pow(growth, Math.max(0, poll - 1 - FLAT_POLLS));
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
