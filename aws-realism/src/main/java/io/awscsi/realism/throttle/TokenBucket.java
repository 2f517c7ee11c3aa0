package io.awscsi.realism.throttle;

import io.awscsi.realism.BucketLimit;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/** A token bucket refilled continuously from a clock; one request takes one token. Thread-safe. */
public final class TokenBucket {

  private final BucketLimit limit;
  private final Clock clock;
  private double tokens;
  private Instant lastRefill;

  public TokenBucket(BucketLimit limit, Clock clock) {
    this.limit = Objects.requireNonNull(limit, "limit");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.tokens = limit.capacity();
    this.lastRefill = clock.instant();
  }

  /** Takes a token if one is left; false means the request is throttled. */
  public synchronized boolean tryAcquire() {
    refill();
    if (tokens >= 1.0) {
      tokens -= 1.0;
      return true;
    }
    return false;
  }

  /** Tokens available now (fractional while refilling). */
  public synchronized double available() {
    refill();
    return tokens;
  }

  public BucketLimit limit() {
    return limit;
  }

  private void refill() {
    Instant now = clock.instant();
    if (now.isAfter(lastRefill)) {
      double seconds = Duration.between(lastRefill, now).toNanos() / 1e9;
      tokens = Math.min(limit.capacity(), tokens + seconds * limit.refillPerSecond());
      lastRefill = now;
    }
  }
}
