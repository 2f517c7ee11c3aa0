package io.awscsi.core.concurrent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TokenBucketTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @ParameterizedTest(name = "capacity {0}, refill {1}/s: {3} more after {2} ms")
  @CsvSource({
      "100, 20, 1000, 20",
      "100, 20, 50, 1",
      "100, 20, 49, 0",
      "50, 5, 1000, 5",
      "50, 5, 3000, 15",
      "10, 5, 60000, 10",
  })
  void aFullBucketEmptiesThenRefusesUntilItRefillsAtItsRate(int capacity, double refill, long waitMillis, int more) {
    TokenBucket bucket = new TokenBucket(capacity, refill, now::get);

    assertThat(takeAll(bucket)).isEqualTo(capacity);
    advance(Duration.ofMillis(waitMillis));

    assertThat(takeAll(bucket)).isEqualTo(more);
  }

  @Test
  void reservationsServeTheBurstThenWaitInArrivalOrder() {
    TokenBucket bucket = new TokenBucket(3, 2, now::get);

    assertThat(bucket.reserve()).isZero();
    assertThat(bucket.reserve()).isZero();
    assertThat(bucket.reserve()).isZero();
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(500));
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(1000));
    assertThat(bucket.tryAcquire()).as("reservations waiting: nothing to take").isFalse();
    advance(Duration.ofSeconds(1));
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void aCancelledReservationGoesBackAndADrainEmpties() {
    TokenBucket bucket = new TokenBucket(3, 2, now::get);
    bucket.reserve();
    bucket.cancel();
    assertThat(bucket.available()).isEqualTo(3.0);

    bucket.drain();
    assertThat(bucket.available()).isZero();
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(500));
    bucket.drain();
    assertThat(bucket.available()).as("a debt stays").isEqualTo(-1.0);
  }

  @Test
  void theRefillNeverPassesTheCapacityNorRunsBackwards() {
    TokenBucket bucket = new TokenBucket(3, 100, now::get);
    advance(Duration.ofHours(1));
    assertThat(bucket.available()).isEqualTo(3.0);

    takeAll(bucket);
    now.addAndGet(-Duration.ofSeconds(5).toNanos());
    assertThat(bucket.available()).isZero();
  }

  @Test
  void refusesAShapeThatCannotServe() {
    assertThatThrownBy(() -> new TokenBucket(0, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("capacity >= 1");
    assertThatThrownBy(() -> new TokenBucket(5, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TokenBucket(5, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
  }

  private static int takeAll(TokenBucket bucket) {
    return (int) IntStream.range(0, 10_000).filter(i -> bucket.tryAcquire()).count();
  }
}
