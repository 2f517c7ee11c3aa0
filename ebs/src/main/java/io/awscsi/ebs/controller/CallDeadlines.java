package io.awscsi.ebs.controller;

import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.concurrent.KeyedLocks;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CallBudget;
import io.awscsi.core.provider.WorkProgress;
import java.time.Duration;

/**
 * The deadline of the current gRPC call less a margin to answer ({@link CallBudget}), read once at the start of each
 * operation; from there it travels as an explicit {@link CallDeadline}. Without a gRPC deadline (direct calls,
 * tests) {@code fallback} applies.
 */
final class CallDeadlines {

  private CallDeadlines() {}

  static CallDeadline current(Duration fallback) {
    return new CallDeadline(CallBudget.deadline(fallback));
  }

  /**
   * Holds {@code key}'s lock within the call's deadline. The controller's operations in flight already run one
   * operation per CSI key; these locks order what runs together on one resource under different keys (publishes of
   * one volume to two nodes; creates of one name from a provider called directly, without the CSI service), so that
   * the second sees what the first did. ABORTED, which the
   * caller retries, when another operation on the key holds it past the deadline.
   */
  static KeyedLocks.Held lock(KeyedLocks locks, String key, CallDeadline deadline, String operation) {
    try (var waiting = WorkProgress.waitingOn("another operation on " + key + " (" + operation + " waits for it)")) {
      return locks.tryLock(deadline.remaining(), key).orElseThrow(() -> DriverException.aborted(operation
          + ": another operation on " + key + " did not finish before this call's deadline; it will be retried"));
    }
  }
}
