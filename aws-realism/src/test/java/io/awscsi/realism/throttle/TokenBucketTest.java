package io.awscsi.realism.throttle;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.realism.BucketLimit;
import io.awscsi.realism.ManualClock;
import io.awscsi.realism.ThrottleLimits;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class TokenBucketTest {

  private final ManualClock clock = ManualClock.startingAt(Instant.parse("2026-03-01T00:00:00Z"));

  @ParameterizedTest(name = "capacity {0}, refill {1}/s: {3} more after {2} ms")
  @CsvSource({
      "100, 20, 1000, 20",
      "100, 20, 50, 1",
      "100, 20, 49, 0",
      "50, 5, 1000, 5",
      "50, 5, 3000, 15",
      "10, 5, 60000, 10",
  })
  void fullBucketEmptiesThenRefillsAtItsRate(int capacity, double refill, long waitMillis, int expected) {
    var bucket = new TokenBucket(new BucketLimit(capacity, refill), clock);

    assertThat(takeAll(bucket)).isEqualTo(capacity);
    clock.advance(Duration.ofMillis(waitMillis));

    assertThat(takeAll(bucket)).isEqualTo(expected);
  }

  @Test
  void refillNeverExceedsCapacity() {
    var bucket = new TokenBucket(new BucketLimit(3, 100), clock);
    clock.advance(Duration.ofHours(1));

    assertThat(bucket.available()).isEqualTo(3.0);
  }

  @Test
  void actionsHaveSeparateBucketsSizedByKind() {
    var throttle = new ActionThrottle(ThrottleLimits.ec2Defaults(), clock);

    assertThat(IntStream.range(0, 200).filter(i -> throttle.tryAcquire("ec2", "DescribeVolumes")).count())
        .isEqualTo(100);
    assertThat(IntStream.range(0, 200).filter(i -> throttle.tryAcquire("ec2", "AttachVolume")).count())
        .isEqualTo(50);
    assertThat(throttle.tryAcquire("ec2", "DescribeInstances")).isTrue();
    assertThat(throttle.tryAcquire("efs", "DescribeVolumes")).isTrue();
  }

  @Test
  void eachServiceHasItsOwnLimits() {
    var profile = io.awscsi.realism.RealismProfile.realistic()
        .withThrottle(ThrottleLimits.off())
        .withEfsThrottle(ThrottleLimits.efsDefaults().withAction("CreateAccessPoint", new BucketLimit(3, 1)));
    var throttle = new ActionThrottle(profile::throttleOf, clock);

    assertThat(IntStream.range(0, 10).filter(i -> throttle.tryAcquire("efs", "CreateAccessPoint")).count())
        .isEqualTo(3);
    assertThat(IntStream.range(0, 200).filter(i -> throttle.tryAcquire("efs", "DeleteAccessPoint")).count())
        .isEqualTo(50);
    assertThat(IntStream.range(0, 500).allMatch(i -> throttle.tryAcquire("ec2", "CreateVolume"))).isTrue();
  }

  @Test
  void disabledThrottleLetsEverythingThrough() {
    var throttle = new ActionThrottle(ThrottleLimits.off(), clock);

    assertThat(IntStream.range(0, 500).allMatch(i -> throttle.tryAcquire("ec2", "CreateVolume"))).isTrue();
  }

  private static int takeAll(TokenBucket bucket) {
    int taken = 0;
    while (bucket.tryAcquire()) {
      taken++;
    }
    return taken;
  }
}
