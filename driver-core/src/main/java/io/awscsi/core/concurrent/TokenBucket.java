package io.awscsi.core.concurrent;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A client-side token bucket for one AWS API action, shaped like the service's own (a burst capacity and a refill
 * rate), so the driver waits here instead of being answered with a throttling error. Callers reserve a token and
 * sleep until it is theirs, which serves them in arrival order; how a caller waits (and against which deadline) is
 * the caller's: the EBS and EFS facades each bound it by their call's deadline.
 */
public final class TokenBucket {

  private final double capacity;
  private final double refillPerNano;
  private final LongSupplier nanoClock;
  private double tokens;
  private long lastRefill;

  public TokenBucket(double capacity, double refillPerSecond, LongSupplier nanoClock) {
    if (capacity < 1 || refillPerSecond <= 0) {
      throw new IllegalArgumentException("a token bucket needs capacity >= 1 and a positive refill rate");
    }
    this.capacity = capacity;
    this.refillPerNano = refillPerSecond / 1e9;
    this.nanoClock = nanoClock;
    this.tokens = capacity;
    this.lastRefill = nanoClock.getAsLong();
  }

  public TokenBucket(double capacity, double refillPerSecond) {
    this(capacity, refillPerSecond, System::nanoTime);
  }

  /** Takes one token and returns how long the caller must wait before using it (zero when one was available). */
  public synchronized Duration reserve() {
    refill();
    tokens -= 1;
    return tokens >= 0 ? Duration.ZERO : Duration.ofNanos((long) Math.ceil(-tokens / refillPerNano));
  }

  /** Gives back a reserved token the caller will not use. */
  public synchronized void cancel() {
    tokens = Math.min(capacity, tokens + 1);
  }

  /**
   * Empties the bucket after the service throttled a call anyway (another client shares the account's bucket): the next
   * callers wait for a refill instead of spending EC2's tokens that are already gone.
   */
  public synchronized void drain() {
    refill();
    tokens = Math.min(tokens, 0);
  }

  /** Tokens now; negative while callers wait for reserved ones. */
  public synchronized double available() {
    refill();
    return tokens;
  }

  private void refill() {
    long now = nanoClock.getAsLong();
    tokens = Math.min(capacity, tokens + (now - lastRefill) * refillPerNano);
    lastRefill = now;
  }
}
