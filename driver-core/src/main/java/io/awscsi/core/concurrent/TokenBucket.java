package io.awscsi.core.concurrent;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A token bucket: a burst capacity refilled continuously at a rate, one call taking one token; thread-safe. It serves
 * both sides of an API's rate limit: {@link #tryAcquire} refuses a call when the bucket is empty (how an API
 * throttles, e.g. the EC2 realism layer), {@link #reserve} takes a token now, into debt when none is left, and says
 * how long the caller must wait for it (how a client paces itself, e.g. the EBS controller's EC2 calls; callers are
 * then served in arrival order).
 */
public final class TokenBucket {

  private final double capacity;
  private final double refillPerSecond;
  private final LongSupplier nanoClock;
  private double tokens;
  private long lastRefill;

  /** A full bucket; {@code nanoClock} gives the time in nanoseconds (System::nanoTime, or a test's clock). */
  public TokenBucket(double capacity, double refillPerSecond, LongSupplier nanoClock) {
    if (!(capacity >= 1) || !(refillPerSecond > 0)) {
      throw new IllegalArgumentException("a token bucket needs capacity >= 1 and a positive refill rate, got "
          + capacity + " and " + refillPerSecond);
    }
    this.capacity = capacity;
    this.refillPerSecond = refillPerSecond;
    this.nanoClock = nanoClock;
    this.tokens = capacity;
    this.lastRefill = nanoClock.getAsLong();
  }

  public TokenBucket(double capacity, double refillPerSecond) {
    this(capacity, refillPerSecond, System::nanoTime);
  }

  /** Takes a token if a whole one is left; false means the call is refused (throttled). */
  public synchronized boolean tryAcquire() {
    refill();
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  }

  /** Takes one token and returns how long the caller must wait before using it (zero when one was available). */
  public synchronized Duration reserve() {
    refill();
    tokens -= 1;
    return tokens >= 0 ? Duration.ZERO : Duration.ofNanos((long) Math.ceil(-tokens / refillPerSecond * 1e9));
  }

  /** Gives back a reserved token the caller will not use. */
  public synchronized void cancel() {
    tokens = Math.min(capacity, tokens + 1);
  }

  /**
   * Empties the bucket, e.g. after the server throttled a call anyway (another client shares its bucket): the next
   * callers wait for a refill instead of spending tokens that are already gone. A debt is kept.
   */
  public synchronized void drain() {
    refill();
    tokens = Math.min(tokens, 0);
  }

  /** Tokens available now: fractional while refilling, negative while reservations are waiting. */
  public synchronized double available() {
    refill();
    return tokens;
  }

  public double capacity() {
    return capacity;
  }

  public double refillPerSecond() {
    return refillPerSecond;
  }

  private void refill() {
    long now = nanoClock.getAsLong();
    if (now > lastRefill) { // a clock set back (a test's) refills nothing
      tokens = Math.min(capacity, tokens + (now - lastRefill) / 1e9 * refillPerSecond);
      lastRefill = now;
    }
  }
}
