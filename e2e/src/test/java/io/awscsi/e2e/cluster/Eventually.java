package io.awscsi.e2e.cluster;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/** Polls a condition until it holds or time runs out; a check that throws counts as "not yet". */
final class Eventually {

  private static final Duration INTERVAL = Duration.ofSeconds(2);

  private Eventually() {}

  static void await(String what, Duration timeout, Supplier<Boolean> condition) {
    Instant deadline = Instant.now().plus(timeout);
    RuntimeException last = null;
    while (true) {
      try {
        if (Boolean.TRUE.equals(condition.get())) {
          return;
        }
        last = null;
      } catch (RuntimeException e) {
        last = e;
      }
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("not within " + timeout + ": " + what
            + (last == null ? "" : " (last check failed: " + last.getMessage() + ")"), last);
      }
      try {
        Thread.sleep(INTERVAL);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting: " + what, e);
      }
    }
  }

  static void await(Duration timeout, Supplier<Boolean> condition) {
    await("condition", timeout, condition);
  }
}
