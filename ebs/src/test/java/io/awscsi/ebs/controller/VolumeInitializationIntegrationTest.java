package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.ebs.cloud.SdkEbsCloud;
import io.awscsi.ebs.cloud.VolumeInitialization;
import io.awscsi.realism.RealismProfile;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.ec2.model.SnapshotState;

/**
 * {@link SdkEbsCloud#initialization} reads DescribeVolumeStatus as EC2 answers it (the realism layer in front of moto
 * models the initialization of restored volumes: {@code initialization-state} and InitializationStatusDetails).
 */
@Tag("integration")
class VolumeInitializationIntegrationTest {

  private static final Duration INITIALIZATION = Duration.ofSeconds(30);

  private static Ec2Environment env;
  private static SdkEbsCloud cloud;

  @BeforeAll
  static void startEc2() {
    env = Ec2Environment.start(RealismProfile.fast().withVolumeInitialization(INITIALIZATION));
    EbsControllerOptions options = Ec2Environment.testOptions();
    cloud = new SdkEbsCloud(env.ec2, options.batching(), options.rateLimits(), options.retryPolicy(),
        new MetricsRegistry());
  }

  @AfterAll
  static void stopEc2() {
    env.close();
  }

  private static CallDeadline deadline() {
    return CallDeadline.after(Duration.ofSeconds(30));
  }

  private static String completedSnapshot() throws InterruptedException {
    String source = env.ec2.createVolume(r -> r.availabilityZone(Ec2Environment.ZONE).size(1)).volumeId();
    Thread.sleep(600);
    String snapshot = env.ec2.createSnapshot(r -> r.volumeId(source)).snapshotId();
    for (int i = 0; i < 50; i++) {
      if (env.ec2.describeSnapshots(r -> r.snapshotIds(snapshot)).snapshots().getFirst().state()
          == SnapshotState.COMPLETED) {
        return snapshot;
      }
      Thread.sleep(100);
    }
    throw new AssertionError(snapshot + " never completed");
  }

  @Test
  void aRestoredVolumeIsInitializingWithProgressAndAnEmptyOneIsNot() throws Exception {
    String snapshot = completedSnapshot();
    String restored = env.ec2.createVolume(r -> r.availabilityZone(Ec2Environment.ZONE).snapshotId(snapshot))
        .volumeId();
    String empty = env.ec2.createVolume(r -> r.availabilityZone(Ec2Environment.ZONE).size(1)).volumeId();

    VolumeInitialization init = cloud.initialization(restored, deadline());
    assertThat(init.initializing()).isTrue();
    assertThat(init.progressPercent()).isPresent();
    assertThat(init.progressPercent().getAsInt()).isBetween(0, 99);
    // Without a provisioned rate EC2 gives no estimate.
    assertThat(init.timeLeft()).isEmpty();

    assertThat(cloud.initialization(empty, deadline())).isEqualTo(VolumeInitialization.COMPLETE);
  }

  @Test
  void aProvisionedRateGivesAnEstimateAndTheVolumeCompletes() throws Exception {
    String snapshot = completedSnapshot();
    // 1 GiB at 300 MiB/s: about 3 s, sooner than the profile's 30 s.
    String restored = env.ec2.createVolume(r -> r.availabilityZone(Ec2Environment.ZONE).snapshotId(snapshot)
        .volumeInitializationRate(300)).volumeId();

    VolumeInitialization init = cloud.initialization(restored, deadline());
    assertThat(init.initializing()).isTrue();
    assertThat(init.timeLeft()).hasValueSatisfying(left -> assertThat(left).isLessThanOrEqualTo(
        Duration.ofSeconds(4)));

    Thread.sleep(init.timeLeft().orElseThrow().plusSeconds(1).toMillis());
    assertThat(cloud.initialization(restored, deadline())).isEqualTo(VolumeInitialization.COMPLETE);
  }

  @Test
  void anUnknownVolumeIsNotFound() {
    assertThatThrownBy(() -> cloud.initialization("vol-0123456789abcdef0", deadline()))
        .isInstanceOfSatisfying(AwsCallException.class,
            e -> assertThat(e.error()).isInstanceOf(AwsCallError.NotFound.class));
  }
}
