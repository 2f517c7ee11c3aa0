package io.awscsi.ebs.controller;

import io.awscsi.ebs.cloud.CallDeadline;
import io.grpc.Context;
import io.grpc.Deadline;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Reads the deadline of the current gRPC call ({@code io.grpc.Context.current().getDeadline()}, which the generated
 * server stubs set on the handler thread) once at the start of each operation; from there it travels as an explicit
 * {@link CallDeadline}. A small margin is kept so the driver's own explanation reaches the caller before its timer
 * fires. Without a gRPC deadline (direct calls, tests) {@code fallback} applies.
 */
final class CallDeadlines {

  private static final Duration MAX_MARGIN = Duration.ofMillis(250);

  private CallDeadlines() {}

  static CallDeadline current(Duration fallback) {
    Deadline grpc = Context.current().getDeadline();
    if (grpc == null) {
      return CallDeadline.after(fallback);
    }
    Duration left = Duration.ofNanos(Math.max(0, grpc.timeRemaining(TimeUnit.NANOSECONDS)));
    Duration margin = left.dividedBy(10).compareTo(MAX_MARGIN) < 0 ? left.dividedBy(10) : MAX_MARGIN;
    return CallDeadline.after(left.minus(margin));
  }
}
