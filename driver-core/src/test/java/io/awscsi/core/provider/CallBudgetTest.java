package io.awscsi.core.provider;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Context;
import io.grpc.Deadline;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CallBudgetTest {

  @ParameterizedTest(name = "{0} ms left -> {1} ms margin")
  @CsvSource({"60000, 2000", "15000, 1500", "1000, 100", "500, 100", "50, 50", "0, 0"})
  void theMarginIsATenthWithinBounds(long leftMillis, long marginMillis) {
    assertThat(CallBudget.margin(Duration.ofMillis(leftMillis))).isEqualTo(Duration.ofMillis(marginMillis));
  }

  @Test
  void theDeadlineIsTheCallersLessTheMargin() throws Exception {
    Context withDeadline = Context.current().withDeadline(Deadline.after(60, TimeUnit.SECONDS),
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor());
    Instant before = Instant.now();
    Instant deadline = withDeadline.call(() -> CallBudget.deadline(Duration.ofMinutes(10)));

    // 60 s less the 2 s margin; never the fallback.
    assertThat(Duration.between(before, deadline)).isBetween(Duration.ofSeconds(57), Duration.ofSeconds(58));
  }

  @Test
  void withoutAGrpcDeadlineTheFallbackApplies() {
    Instant before = Instant.now();
    Duration budget = Duration.between(before, CallBudget.deadline(Duration.ofSeconds(30)));

    assertThat(budget).isBetween(Duration.ofSeconds(29), Duration.ofSeconds(31));
  }

  @Test
  void theTimeLeftForAWaitIsTheBudgetAndNeverLessThanTheMinimumMargin() throws Exception {
    var timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    try {
      Duration eightSeconds = Context.current().withDeadline(Deadline.after(8, TimeUnit.SECONDS), timer)
          .call(() -> CallBudget.remaining(Duration.ofMinutes(2)));
      Duration spent = Context.current().withDeadline(Deadline.after(1, TimeUnit.MILLISECONDS), timer)
          .call(() -> {
            Thread.sleep(5);
            return CallBudget.remaining(Duration.ofMinutes(2));
          });

      assertThat(eightSeconds).isBetween(Duration.ofMillis(7000), Duration.ofMillis(7200));
      assertThat(spent).isEqualTo(CallBudget.MIN_MARGIN);
      assertThat(CallBudget.remaining(Duration.ofSeconds(30))).isBetween(Duration.ofSeconds(29),
          Duration.ofSeconds(30));
    } finally {
      timer.shutdownNow();
    }
  }

  @Test
  void aCallerWaitingForWorkElsewhereWaitsUntilHalfTheMarginBeforeItsDeadline() throws Exception {
    var timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    try {
      Duration[] both = Context.current().withDeadline(Deadline.after(8, TimeUnit.SECONDS), timer)
          .call(() -> new Duration[] {CallBudget.untilAnswer(Duration.ofMinutes(2)),
              CallBudget.remaining(Duration.ofMinutes(2))});

      // 8 s less 0.4 s (half the 0.8 s margin), later than the work's own waits (8 s less 0.8 s).
      assertThat(both[0]).isBetween(Duration.ofMillis(7500), Duration.ofMillis(7600));
      assertThat(both[0]).isGreaterThan(both[1]);
      assertThat(CallBudget.untilAnswer(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(30));
    } finally {
      timer.shutdownNow();
    }
  }
}
