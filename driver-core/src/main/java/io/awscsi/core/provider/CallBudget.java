package io.awscsi.core.provider;

import io.grpc.Context;
import io.grpc.Deadline;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * The time a provider has for the work of the current CSI call: the caller's gRPC deadline
 * ({@code io.grpc.Context.current().getDeadline()}, set on the handler thread) less a margin, so that the driver's
 * own answer, naming what did not finish, reaches the caller before the caller's timer fires. Every wait on a cloud
 * API derives from it. A controller operation runs in a context of its own whose deadline is the operation's budget
 * ({@code InFlightOperations}), so there the budget is that one. Without a gRPC deadline (direct calls, tests) a
 * fallback applies.
 */
public final class CallBudget {

  /** The margin is a tenth of the time left, at least this much... */
  static final Duration MIN_MARGIN = Duration.ofMillis(100);
  /** ...and at most this much. */
  static final Duration MAX_MARGIN = Duration.ofSeconds(2);

  private CallBudget() {}

  /** The instant by which the current call's work must be done. */
  public static Instant deadline(Duration fallback) {
    return Instant.now().plus(budget(fallback));
  }

  /**
   * The time left for a local wait started now (a mount, a Kubernetes read): the budget until {@link #deadline}, and
   * never less than {@link #MIN_MARGIN}, so that a nearly spent deadline still gets an answer from the wait itself.
   */
  public static Duration remaining(Duration fallback) {
    Duration left = budget(fallback);
    return left.compareTo(MIN_MARGIN) < 0 ? MIN_MARGIN : left;
  }

  /**
   * The time a caller waiting for work done on another thread may wait: until half the margin before its gRPC
   * deadline, so that the work's own waits, which end at {@link #deadline} (the whole margin before), have ended and
   * said why by the time the caller is answered. Without a gRPC deadline: {@code fallback}.
   */
  public static Duration untilAnswer(Duration fallback) {
    Deadline grpc = Context.current().getDeadline();
    if (grpc == null) {
      return fallback;
    }
    Duration left = Duration.ofNanos(Math.max(0, grpc.timeRemaining(TimeUnit.NANOSECONDS)));
    return left.minus(margin(left).dividedBy(2));
  }

  private static Duration budget(Duration fallback) {
    Deadline grpc = Context.current().getDeadline();
    if (grpc == null) {
      return fallback;
    }
    Duration left = Duration.ofNanos(Math.max(0, grpc.timeRemaining(TimeUnit.NANOSECONDS)));
    return left.minus(margin(left));
  }

  /** A tenth of {@code left}, within [{@link #MIN_MARGIN}, {@link #MAX_MARGIN}] and never more than {@code left}. */
  static Duration margin(Duration left) {
    Duration tenth = left.dividedBy(10);
    Duration margin = tenth.compareTo(MIN_MARGIN) < 0 ? MIN_MARGIN : tenth.compareTo(MAX_MARGIN) > 0 ? MAX_MARGIN
        : tenth;
    return margin.compareTo(left) > 0 ? left : margin;
  }
}
