package io.awscsi.core.concurrent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TokenBucketTest {

  @Test
  void servesTheBurstThenTheRefillRate() {
    AtomicLong now = new AtomicLong();
    TokenBucket bucket = new TokenBucket(3, 2, now::get);
    assertThat(bucket.reserve()).isZero();
    assertThat(bucket.reserve()).isZero();
    assertThat(bucket.reserve()).isZero();
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(500));
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(1000));
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(500));
    bucket.cancel();
    now.addAndGet(Duration.ofSeconds(10).toNanos());
    assertThat(bucket.available()).isEqualTo(3.0);
    bucket.drain();
    assertThat(bucket.available()).isZero();
  }

  @Test
  void aDrainedBucketMakesTheNextCallerWaitForTheRefill() {
    AtomicLong now = new AtomicLong();
    TokenBucket bucket = new TokenBucket(50, 5, now::get);
    bucket.drain();
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(200));
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(400));
  }
}
