package io.awscsi.efs.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.AwsRateLimits;
import io.awscsi.aws.call.AwsRetryPolicy;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.efs.testing.MotoEfs;
import io.awscsi.realism.BucketLimit;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.ThrottleLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * EFS calls wait for their action's client-side bucket instead of being throttled: the realism layer's EFS is given
 * a small CreateAccessPoint bucket (burst 5, 10/s) and the driver a bucket just under it.
 */
@Tag("integration")
class EfsRateLimitIntegrationTest {

  private static final RealismProfile PROFILE = RealismProfile.instant().withEfsThrottle(
      ThrottleLimits.efsDefaults().withAction("CreateAccessPoint", new BucketLimit(5, 10)));
  private static MotoEfs aws;
  private String fs;

  @BeforeAll
  static void startAws() {
    aws = MotoEfs.start(PROFILE);
  }

  @AfterAll
  static void stopAws() {
    aws.close();
  }

  @BeforeEach
  void fresh() {
    aws.reset();
    fs = aws.createFileSystem();
    aws.proxy().resetStats();
  }

  /** 30 concurrent CreateAccessPoint calls, one attempt each; the outcomes. */
  private List<Boolean> createConcurrently(AwsRateLimits limits) throws Exception {
    SdkEfsCloud cloud = new SdkEfsCloud(aws.efs(), SdkEfsCloud.callRunner(new MetricsRegistry(),
        new AwsRetryPolicy(Duration.ofMillis(10), Duration.ofMillis(10), 1), limits));
    List<Future<Boolean>> results = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < 30; i++) {
        long id = 2000 + i;
        results.add(pool.submit(() -> {
          try {
            cloud.createAccessPoint(new AccessPointSpec(fs, "t" + id, id, id, new RootDirectory("/v/" + id, id, id,
                "0700"), Map.of()));
            return true;
          } catch (AwsCallException e) {
            return false;
          }
        }));
      }
    }
    List<Boolean> out = new ArrayList<>();
    for (Future<Boolean> f : results) {
      out.add(f.get());
    }
    return out;
  }

  @Test
  void callsBeyondTheBurstWaitForTheirTokensAndEfsThrottlesNone() throws Exception {
    List<Boolean> created = createConcurrently(new AwsRateLimits(4, 10, 90, 20));

    assertThat(created).containsOnly(true).hasSize(30);
    assertThat(aws.proxy().stats().action("efs", "CreateAccessPoint").throttled()).isZero();
    assertThat(aws.proxy().stats().calls("efs", "CreateAccessPoint")).isEqualTo(30);
  }

  @Test
  void withoutTheBucketTheSameBurstIsThrottled() throws Exception {
    List<Boolean> created = createConcurrently(new AwsRateLimits(1000, 1000, 1000, 1000));

    assertThat(created).contains(false);
    assertThat(aws.proxy().stats().action("efs", "CreateAccessPoint").throttled()).isPositive();
  }
}
