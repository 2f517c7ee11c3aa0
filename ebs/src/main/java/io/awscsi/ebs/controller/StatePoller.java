package io.awscsi.ebs.controller;

import io.awscsi.aws.call.CallDeadline;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;

/** Polls EC2 for a state change with an {@link AdaptiveBackoff}, bounded by the caller's deadline. */
final class StatePoller {

  private StatePoller() {}

  /**
   * Sleeps, then asks {@code check}, until it answers a value (returned) or throws (propagated). The time from
   * {@code since} to the answer trains {@code backoff}.
   */
  static <T> T await(AdaptiveBackoff backoff, CallDeadline deadline, Instant since, String what,
      Supplier<Optional<T>> check) {
    for (int poll = 0; ; poll++) {
      Duration pause = backoff.delay(poll);
      Duration left = deadline.remaining();
      // Poll once more right before the deadline instead of giving up with time left.
      if (pause.compareTo(left) > 0 && left.compareTo(Duration.ofMillis(100)) > 0) {
        pause = left.minusMillis(100);
      }
      deadline.sleep(pause, what);
      Optional<T> done = check.get();
      if (done.isPresent()) {
        backoff.observed(Duration.between(since, Instant.now()));
        return done.get();
      }
    }
  }
}
