package io.awscsi.realism.throttle;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.realism.BucketLimit;
import io.awscsi.realism.ManualClock;
import io.awscsi.realism.ThrottleLimits;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Per-action buckets (io.awscsi.core.concurrent.TokenBucket, tested in driver-core) on the realism layer's clock. */
class ActionThrottleTest {

  private final ManualClock clock = ManualClock.startingAt(Instant.parse("2026-03-01T00:00:00Z"));

  @Test
  void aBucketRefillsFromTheRealismClock() {
    var throttle = new ActionThrottle(ThrottleLimits.ec2Defaults(), clock);
    assertThat(IntStream.range(0, 100).filter(i -> throttle.tryAcquire("ec2", "AttachVolume")).count()).isEqualTo(50);

    clock.advance(Duration.ofSeconds(1)); // mutating actions refill at 5/s

    assertThat(IntStream.range(0, 100).filter(i -> throttle.tryAcquire("ec2", "AttachVolume")).count()).isEqualTo(5);
    throttle.reset();
    assertThat(throttle.tryAcquire("ec2", "AttachVolume")).as("a fresh account").isTrue();
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
}
