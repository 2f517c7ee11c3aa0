package io.awscsi.aws.call;

import java.time.Duration;

/**
 * When and how long to back off before repeating a failed AWS call: only throttling and server or network faults
 * are retried, with exponential backoff and jitter, at most {@code maxAttempts} times in all (the first included), and
 * never past the caller's deadline.
 */
public record AwsRetryPolicy(Duration baseDelay, Duration maxDelay, int maxAttempts) {

  /** Upstream EBS retries up to 50 times and lets the sidecar's timeout end it; the deadline bounds us the same way. */
  public static final AwsRetryPolicy EC2_DEFAULT = new AwsRetryPolicy(Duration.ofMillis(200), Duration.ofSeconds(8),
      50);

  /** About six seconds of waiting at most, well inside the EFS provisioner's 15 s default timeout. */
  public static final AwsRetryPolicy EFS_DEFAULT = new AwsRetryPolicy(Duration.ofMillis(200), Duration.ofSeconds(5),
      6);

  /** The smallest remaining time worth another attempt: a request needs at least this long to be answered. */
  public static final Duration MIN_USEFUL_TIME = Duration.ofMillis(50);

  public AwsRetryPolicy {
    if (baseDelay.isNegative() || baseDelay.isZero() || maxDelay.compareTo(baseDelay) < 0 || maxAttempts < 1) {
      throw new IllegalArgumentException("retry policy needs 0 < baseDelay <= maxDelay and maxAttempts >= 1");
    }
  }

  /** Whether a call that failed with {@code error} should be tried again with {@code remaining} time left. */
  public boolean shouldRetry(AwsCallError error, Duration remaining) {
    return error.retryable() && remaining.compareTo(MIN_USEFUL_TIME) > 0;
  }

  /**
   * The pause before attempt {@code attempt + 1} ({@code attempt} >= 1 failed so far): "equal jitter" between half
   * and all of {@code base * 2^(attempt-1)}, capped at {@code maxDelay} and at the time left. {@code random} is in
   * [0, 1).
   */
  public Duration backoff(int attempt, double random, Duration remaining) {
    long ceiling = baseDelay.toMillis() << Math.min(Math.max(attempt - 1, 0), 20);
    ceiling = Math.min(ceiling, maxDelay.toMillis());
    long pause = ceiling / 2 + (long) (random * (ceiling - ceiling / 2));
    long left = Math.max(0, remaining.toMillis() - MIN_USEFUL_TIME.toMillis());
    return Duration.ofMillis(Math.min(pause, left));
  }
}
