package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.volume;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.PublishedVolume;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.provider.Volume;
import io.awscsi.realism.AwsError;
import io.awscsi.realism.BucketLimit;
import io.awscsi.realism.Fault;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.ThrottleLimits;
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

/** How the driver talks to EC2: throttling, batching across operations, readiness, metrics. */
@Tag("integration")
class Ec2BehaviourIntegrationTest {

  /** CreateVolume gets a tiny EC2 bucket (burst 3, 2/s) so that the driver's own limit (burst 45) overruns it. */
  private static final RealismProfile PROFILE = RealismProfile.fast()
      .withThrottle(ThrottleLimits.ec2Defaults().withAction("CreateVolume", new BucketLimit(3, 2)));

  private static Ec2Environment env;
  private MetricsRegistry metrics;
  private EbsControllerProvider provider;

  @BeforeAll
  static void startEc2() {
    env = Ec2Environment.start(PROFILE);
  }

  @AfterAll
  static void stopEc2() {
    env.close();
  }

  @BeforeEach
  void fresh() {
    env.reset();
    metrics = new MetricsRegistry();
    provider = env.provider(Ec2Environment.testOptions(), metrics);
  }

  @Test
  void throttledCallsAreRetriedWithBackoffAndCounted() throws Exception {
    List<Future<Volume>> futures = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < 12; i++) {
        String name = "pvc-t" + i;
        futures.add(pool.submit(() -> provider.provisioner().createVolume(volume(name, 1, Map.of()))));
      }
    }
    for (Future<Volume> f : futures) {
      assertThat(f.get().volumeId()).startsWith("vol-");
    }
    long throttled = env.proxy.stats().action("ec2", "CreateVolume").throttled();
    assertThat(throttled).isPositive();
    assertThat(metrics.counter("aws_ebs_csi_api_request_throttles_total", "", "operation_name")
        .value("CreateVolume")).isEqualTo((double) throttled);
    assertThat(metrics.scrape()).contains("aws_ebs_csi_api_request_errors_total{request=\"CreateVolume\","
        + "code=\"RequestLimitExceeded\"}");
    assertThat(env.ec2.describeVolumes().volumes()).hasSize(12);
  }

  @Test
  void lookupsOfConcurrentOperationsShareDescribeCallsAndABadIdSpoilsNone() throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      ids.add(env.ec2.createVolume(r -> r.availabilityZone(Ec2Environment.ZONE).size(1)).volumeId());
      Thread.sleep(500); // this class's CreateVolume bucket refills at 2/s
    }
    ids.add(5, "vol-0123456789abcdef0");
    env.proxy.resetStats();
    List<Future<PublishedVolume>> lookups = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (String id : ids) {
        lookups.add(pool.submit(() -> {
          try {
            return provider.lister().orElseThrow().getVolume(id);
          } catch (io.awscsi.core.errors.DriverException e) {
            return null;
          }
        }));
      }
    }
    int found = 0;
    for (Future<PublishedVolume> f : lookups) {
      found += f.get() == null ? 0 : 1;
    }
    assertThat(found).isEqualTo(10);
    // 11 lookups: one sent at once, the rest batched and the bad id isolated by halving.
    assertThat(env.proxy.stats().calls("ec2", "DescribeVolumes")).isLessThanOrEqualTo(10);
  }

  @Test
  void readinessFollowsTheDriversOwnCallsWithoutCallsOfItsOwn() throws Exception {
    // A short deadline: a failing EC2 is retried until the call's deadline.
    EbsControllerProvider fresh = env.provider(Ec2Environment.testOptions()
        .withDefaultCallTimeout(java.time.Duration.ofSeconds(3)), new MetricsRegistry());
    Volume volume = fresh.provisioner().createVolume(volume("pvc-ready", 1, Map.of()));
    assertThat(fresh.readiness()).isInstanceOf(Readiness.Ready.class);
    // An error answer is an answer: EC2 is there.
    Requests.assertError(() -> fresh.lister().orElseThrow().getVolume("vol-0123456789abcdef0"),
        io.awscsi.core.errors.DriverError.NotFound.class);
    assertThat(fresh.readiness()).isInstanceOf(Readiness.Ready.class);
    try (var fault = env.proxy.injectFault(Fault.ec2("DescribeVolumes", AwsError.of(503, "Unavailable",
        "EC2 is down")))) {
      assertThatThrownBy(() -> fresh.lister().orElseThrow().getVolume(volume.volumeId()))
          .isInstanceOfSatisfying(io.awscsi.core.errors.DriverException.class, e -> assertThat(e.error())
              .isInstanceOfAny(io.awscsi.core.errors.DriverError.Unavailable.class,
                  io.awscsi.core.errors.DriverError.DeadlineExceeded.class));
      long callsBefore = env.proxy.stats().totalCalls();
      Readiness cut = fresh.readiness();
      for (int i = 0; i < 5; i++) {
        fresh.readiness();
      }
      assertThat(cut).isInstanceOfSatisfying(Readiness.NotReady.class, n -> assertThat(n.reason())
          .contains("EC2 did not answer the driver's DescribeVolumes call", "Unavailable"));
      assertThat(env.proxy.stats().totalCalls()).as("readiness makes no EC2 call").isEqualTo(callsBefore);
    }
    assertThat(fresh.readiness()).as("no call since the outage: still not ready")
        .isInstanceOf(Readiness.NotReady.class);
    assertThat(fresh.lister().orElseThrow().getVolume(volume.volumeId()).volume().volumeId())
        .isEqualTo(volume.volumeId());
    assertThat(fresh.readiness()).isInstanceOf(Readiness.Ready.class);
  }

  @Test
  void refusedCredentialsMakeTheControllerNotReady() {
    EbsControllerProvider fresh = env.provider(Ec2Environment.testOptions()
        .withDefaultCallTimeout(java.time.Duration.ofSeconds(3)), new MetricsRegistry());
    try (var fault = env.proxy.injectFault(Fault.ec2("DescribeVolumes", AwsError.of(403,
        "UnauthorizedOperation", "You are not authorized to perform this operation.")))) {
      Requests.assertError(() -> fresh.lister().orElseThrow().getVolume("vol-0123456789abcdef0"),
          io.awscsi.core.errors.DriverError.PermissionDenied.class);
      assertThat(fresh.readiness()).isInstanceOfSatisfying(Readiness.NotReady.class,
          n -> assertThat(n.reason()).contains("UnauthorizedOperation"));
    }
  }
}
