package io.awscsi.realism;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * How long an emulated EC2/EFS step takes: a log-normal distribution given by its median and 99th percentile, the way
 * AWS publishes such figures ("median ~1.5 s, p99 ~4 s"). Samples are capped at twice the p99 so that one unlucky draw
 * cannot stall a test.
 */
public record Latency(Duration median, Duration p99) {

  /** z-score of the 99th percentile of the standard normal distribution. */
  private static final double Z_99 = 2.3263478740408408;

  public Latency {
    Objects.requireNonNull(median, "median");
    Objects.requireNonNull(p99, "p99");
    if (median.isNegative() || p99.isNegative()) {
      throw new IllegalArgumentException("latency must not be negative: median " + median + ", p99 " + p99);
    }
    if (p99.compareTo(median) < 0) {
      throw new IllegalArgumentException("latency p99 " + p99 + " is below its median " + median);
    }
  }

  public static Latency none() {
    return new Latency(Duration.ZERO, Duration.ZERO);
  }

  public static Latency fixed(Duration value) {
    return new Latency(value, value);
  }

  public static Latency logNormal(Duration median, Duration p99) {
    return new Latency(median, p99);
  }

  public static Latency millis(long median, long p99) {
    return new Latency(Duration.ofMillis(median), Duration.ofMillis(p99));
  }

  public boolean isZero() {
    return p99.isZero();
  }

  /** One draw; zero when this latency is {@link #none()}. */
  public Duration sample(RandomGenerator random) {
    if (isZero()) {
      return Duration.ZERO;
    }
    long medianNanos = median.toNanos();
    long p99Nanos = p99.toNanos();
    if (medianNanos == 0 || p99Nanos == medianNanos) {
      return medianNanos == 0 ? Duration.ofNanos(random.nextLong(p99Nanos + 1)) : median;
    }
    double sigma = Math.log((double) p99Nanos / medianNanos) / Z_99;
    double nanos = medianNanos * Math.exp(sigma * random.nextGaussian());
    return Duration.ofNanos((long) Math.min(nanos, 2.0 * p99Nanos));
  }
}
