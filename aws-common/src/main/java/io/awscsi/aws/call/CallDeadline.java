package io.awscsi.aws.call;

import io.awscsi.core.provider.CallBudget;
import java.time.Duration;
import java.time.Instant;

/**
 * The instant by which an operation must be done: the deadline of the gRPC context it runs in, which for a controller
 * operation is the operation's own budget (it outlives a caller that gives up, so that the caller's retry joins it,
 * {@code InFlightOperations}), elsewhere the caller's gRPC deadline. Every wait on an AWS API (rate limiter, retry
 * backoff, batch result, state polling) is bounded by it, so no work runs on without bound.
 */
public record CallDeadline(Instant at) {

  public static CallDeadline after(Duration timeout) {
    return new CallDeadline(Instant.now().plus(timeout));
  }

  /**
   * The deadline of the CSI call on this thread (its gRPC deadline less the margin to answer, {@link CallBudget}), or
   * {@code fallback} from now outside a CSI call (startup, tests).
   */
  public static CallDeadline ofCurrentCall(Duration fallback) {
    return new CallDeadline(CallBudget.deadline(fallback));
  }

  public Duration remaining() {
    Duration left = Duration.between(Instant.now(), at);
    return left.isNegative() ? Duration.ZERO : left;
  }

  public boolean expired() {
    return !Instant.now().isBefore(at);
  }

  /** The earlier of this deadline and {@code timeout} from now. */
  public CallDeadline atMost(Duration timeout) {
    Instant other = Instant.now().plus(timeout);
    return other.isBefore(at) ? new CallDeadline(other) : this;
  }

  /**
   * Sleeps for {@code pause}, or fails at once with {@link AwsCallError.DeadlinePassed} when the pause would end after
   * the deadline; {@code what} says what was being waited for.
   */
  public void sleep(Duration pause, String what) {
    if (pause.compareTo(remaining()) > 0) {
      throw new AwsCallException(new AwsCallError.DeadlinePassed(what + ": the call's deadline passed ("
          + remaining().toMillis() + " ms left, next wait " + pause.toMillis() + " ms)"));
    }
    try {
      Thread.sleep(pause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AwsCallException(new AwsCallError.Interrupted(what + ": interrupted (the driver is stopping)"));
    }
  }
}
