package io.awscsi.e2e.cluster;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * Polls a condition until it holds or time runs out; a check that throws counts as "not yet". The pause between
 * checks starts short and grows to {@link #LONGEST} (most waits of the suite end within a second or two, and a fixed
 * 2 s pause cost each of them a second on average: minutes over the suite), so a long wait does not hammer the API.
 */
final class Eventually {

  private static final Duration FIRST = Duration.ofMillis(200);
  private static final Duration LONGEST = Duration.ofSeconds(2);

  private Eventually() {}

  /** Lets {@code d} pass (a hold that a case shows, not a wait for a condition); an interrupt fails the case. */
  static void sleep(Duration d) {
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  static void await(String what, Duration timeout, Supplier<Boolean> condition) {
    Instant deadline = Instant.now().plus(timeout);
    Duration pause = FIRST;
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
        Thread.sleep(pause);
        Duration next = pause.multipliedBy(3).dividedBy(2);
        pause = next.compareTo(LONGEST) > 0 ? LONGEST : next;
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
