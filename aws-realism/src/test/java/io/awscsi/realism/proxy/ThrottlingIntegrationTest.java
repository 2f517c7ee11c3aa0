package io.awscsi.realism.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.realism.AwsClients;
import io.awscsi.realism.BucketLimit;
import io.awscsi.realism.ManualClock;
import io.awscsi.realism.MotoExtension;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.RealismProxy;
import io.awscsi.realism.ThrottleLimits;
import io.awscsi.realism.process.MotoServer;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;
import software.amazon.awssdk.services.efs.model.EfsException;

/** One token bucket per API action, answered as EC2 (503 RequestLimitExceeded) and EFS (429 ThrottlingException). */
@Tag("integration")
@ExtendWith(MotoExtension.class)
class ThrottlingIntegrationTest {

  private final ManualClock clock = ManualClock.startingAt(Instant.parse("2026-03-01T10:00:00Z"));

  private RealismProxy proxy(MotoServer moto, RealismProfile profile) {
    RealismProxy proxy = RealismProxy.builder().upstream(moto.endpoint()).profile(profile).clock(clock).start();
    proxy.reset();
    return proxy;
  }

  @Test
  void describeBurstBeyondTheBucketIsRequestLimitExceededUntilRefilled(MotoServer moto) {
    try (var proxy = proxy(moto, RealismProfile.fast()); Ec2Client ec2 = AwsClients.ec2(proxy.endpoint())) {
      for (int i = 0; i < 100; i++) {
        ec2.describeVolumes();
      }

      assertThrottled(() -> ec2.describeVolumes());
      ec2.describeInstances();  // another action has its own bucket
      clock.advance(Duration.ofSeconds(1));
      for (int i = 0; i < 20; i++) {
        ec2.describeVolumes();
      }
      assertThrottled(() -> ec2.describeVolumes());
      assertThat(proxy.stats().action("ec2", "DescribeVolumes").throttled()).isEqualTo(2);
      assertThat(proxy.stats().action("ec2", "DescribeVolumes").calls()).isEqualTo(122);
    }
  }

  @Test
  void mutatingActionsHaveTheSmallerBucket(MotoServer moto) {
    try (var proxy = proxy(moto, RealismProfile.fast()); Ec2Client ec2 = AwsClients.ec2(proxy.endpoint())) {
      for (int i = 0; i < 50; i++) {
        assertThatThrownBy(() -> ec2.deleteVolume(r -> r.volumeId("vol-0123456789abcdef0")))
            .isInstanceOfSatisfying(Ec2Exception.class,
                e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidVolume.NotFound"));
      }

      assertThrottled(() -> ec2.deleteVolume(r -> r.volumeId("vol-0123456789abcdef0")));
      var stats = proxy.stats().action("ec2", "DeleteVolume");
      assertThat(stats.calls()).isEqualTo(51);
      assertThat(stats.errors()).isEqualTo(50);
      assertThat(stats.throttled()).isEqualTo(1);
      assertThat(stats.errorCodes()).containsEntry("InvalidVolume.NotFound", 50L);
    }
  }

  @Test
  void actionLimitCanBeOverriddenOrThrottlingTurnedOff(MotoServer moto) {
    var small = RealismProfile.fast().withThrottle(
        ThrottleLimits.ec2Defaults().withAction("DescribeVolumes", new BucketLimit(3, 1)));
    try (var proxy = proxy(moto, small); Ec2Client ec2 = AwsClients.ec2(proxy.endpoint())) {
      for (int i = 0; i < 3; i++) {
        ec2.describeVolumes();
      }
      assertThrottled(() -> ec2.describeVolumes());
    }
    var off = RealismProfile.fast().withThrottle(
        ThrottleLimits.off().withAction("DescribeVolumes", new BucketLimit(3, 1)));
    try (var proxy = proxy(moto, off); Ec2Client ec2 = AwsClients.ec2(proxy.endpoint())) {
      for (int i = 0; i < 6; i++) {
        ec2.describeVolumes();
      }
      assertThat(proxy.stats().totalThrottled()).isZero();
    }
  }

  @Test
  void createSnapshotsIsThrottledInItsOwnBucketApartFromCreateSnapshot(MotoServer moto) {
    var small = RealismProfile.fast().withThrottle(
        ThrottleLimits.ec2Defaults().withAction("CreateSnapshots", new BucketLimit(2, 1)));
    try (var proxy = proxy(moto, small); Ec2Client ec2 = AwsClients.ec2(proxy.endpoint())) {
      for (int i = 0; i < 2; i++) {
        assertThatThrownBy(() -> ec2.createSnapshots(r -> r.instanceSpecification(s -> s
            .instanceId("i-0123456789abcdef0")))).isInstanceOf(Ec2Exception.class);
      }
      assertThrottled(() -> ec2.createSnapshots(r -> r.instanceSpecification(s -> s
          .instanceId("i-0123456789abcdef0"))));
      assertThatThrownBy(() -> ec2.createSnapshot(r -> r.volumeId("vol-0123456789abcdef0")))
          .isInstanceOfSatisfying(Ec2Exception.class,
              e -> assertThat(e.awsErrorDetails().errorCode()).isNotEqualTo("RequestLimitExceeded"));
      assertThat(proxy.stats().action("ec2", "CreateSnapshots").throttled()).isEqualTo(1);
      assertThat(proxy.stats().action("ec2", "CreateSnapshot").throttled()).isZero();
    }
  }

  @Test
  void efsThrottlingIsAThrottlingExceptionTheSdkRecognises(MotoServer moto) {
    var small = RealismProfile.fast().withEfsThrottle(
        ThrottleLimits.efsDefaults().withAction("DescribeAccessPoints", new BucketLimit(2, 1)));
    try (var proxy = proxy(moto, small); var efs = AwsClients.efs(proxy.endpoint())) {
      efs.describeAccessPoints(r -> r.maxResults(10));
      efs.describeAccessPoints(r -> r.maxResults(10));

      assertThatThrownBy(() -> efs.describeAccessPoints(r -> r.maxResults(10)))
          .isInstanceOfSatisfying(EfsException.class, e -> {
        assertThat(e.statusCode()).isEqualTo(429);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ThrottlingException");
        assertThat(e.isThrottlingException()).isTrue();
      });
      assertThat(proxy.stats().action("efs", "DescribeAccessPoints").throttled()).isEqualTo(1);
    }
  }

  private static void assertThrottled(Runnable call) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(Ec2Exception.class, e -> {
      assertThat(e.statusCode()).isEqualTo(503);
      assertThat(e.awsErrorDetails().errorCode()).isEqualTo("RequestLimitExceeded");
      assertThat(e.isThrottlingException()).isTrue();
    });
  }
}
