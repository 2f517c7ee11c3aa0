package io.awscsi.ebs.controller;

import io.awscsi.core.provider.CallBudget;
import io.awscsi.ebs.cloud.CallDeadline;
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
}
