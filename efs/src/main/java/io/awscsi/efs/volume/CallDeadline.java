package io.awscsi.efs.volume;

import io.grpc.Context;
import io.grpc.Deadline;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What is left of the current gRPC call's deadline ({@code io.grpc.Context}, which the server sets on the handler
 * thread), less a margin so the driver's own answer reaches the caller before its timer fires: the bound of the
 * node's and controller's local waits (mounts, Kubernetes reads). A mount that outlives its caller would hold the
 * call's in-flight lease and a mount slot for nobody; the kubelet calls again. Without a gRPC deadline (direct calls,
 * tests) the fallback applies.
 */
public final class CallDeadline {

  /** The kubelet's own bound for a CSI call is two minutes. */
  public static final Duration FALLBACK = Duration.ofMinutes(2);
  private static final Duration MAX_MARGIN = Duration.ofMillis(500);
  /** A mount is given at least this, so a nearly spent deadline still gets an answer from the mount itself. */
  private static final Duration MINIMUM = Duration.ofMillis(100);

  private CallDeadline() {}

  /** The time left for a wait started now. */
  public static Duration remaining() {
    Deadline deadline = Context.current().getDeadline();
    if (deadline == null) {
      return FALLBACK;
    }
    Duration left = Duration.ofNanos(Math.max(0, deadline.timeRemaining(TimeUnit.NANOSECONDS)));
    Duration margin = left.dividedBy(10).compareTo(MAX_MARGIN) < 0 ? left.dividedBy(10) : MAX_MARGIN;
    Duration budget = left.minus(margin);
    return budget.compareTo(MINIMUM) < 0 ? MINIMUM : budget;
  }
}
