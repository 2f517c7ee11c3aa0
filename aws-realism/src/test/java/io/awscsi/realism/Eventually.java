package io.awscsi.realism;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Polls until a value satisfies a condition, for states that change asynchronously. */
public final class Eventually {

  private Eventually() {}

  public static <T> T await(Duration timeout, Supplier<T> probe, Predicate<T> done) {
    Instant deadline = Instant.now().plus(timeout);
    T value = probe.get();
    while (!done.test(value)) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("condition not reached within " + timeout + "; last value: " + value);
      }
      try {
        Thread.sleep(25);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
      value = probe.get();
    }
    return value;
  }
}
