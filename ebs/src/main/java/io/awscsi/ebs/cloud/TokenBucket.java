package io.awscsi.ebs.cloud;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A client-side token bucket for one EC2 action, shaped like EC2's own (a burst capacity and a refill rate) but a
 * little smaller, so the driver waits here instead of being answered RequestLimitExceeded. Callers reserve a token
 * and sleep until it is theirs, which serves them in arrival order.
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
   * Empties the bucket after EC2 throttled a call anyway (another client shares the account's bucket): the next
   * callers wait for a refill instead of spending EC2's tokens that are already gone.
   */
  public synchronized void drain() {
    refill();
    tokens = Math.min(tokens, 0);
  }

  /** Waits for a token, or fails at once when the wait would pass the deadline. */
  public void acquire(CallDeadline deadline, String what) {
    Duration wait = reserve();
    if (wait.isZero()) {
      return;
    }
    if (wait.compareTo(deadline.remaining()) > 0) {
      cancel();
    }
    deadline.sleep(wait, what + ": waiting for the client-side rate limit");
  }

  synchronized double available() {
    refill();
    return tokens;
  }

  private void refill() {
    long now = nanoClock.getAsLong();
    tokens = Math.min(capacity, tokens + (now - lastRefill) * refillPerNano);
    lastRefill = now;
  }
}
