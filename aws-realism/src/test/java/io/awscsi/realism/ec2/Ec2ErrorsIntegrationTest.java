package io.awscsi.realism.ec2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.realism.AwsClients;
import io.awscsi.realism.Latency;
import io.awscsi.realism.ManualClock;
import io.awscsi.realism.MotoExtension;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.RealismProxy;
import io.awscsi.realism.process.MotoServer;
import java.time.Duration;
import java.time.Instant;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;
import software.amazon.awssdk.services.ec2.model.VolumeType;

/** The errors real EC2 gives where moto accepts the call (or answers differently). */
@Tag("integration")
@ExtendWith(MotoExtension.class)
class Ec2ErrorsIntegrationTest {

  private static final String ZONE = "us-east-1a";
  private static final RealismProfile PROFILE = RealismProfile.fast()
      .withVolumeCreation(Latency.fixed(Duration.ofSeconds(2)))
      .withVolumeAttach(Latency.fixed(Duration.ofSeconds(2)))
      .withVolumeDetach(Latency.fixed(Duration.ofSeconds(2)))
      .withModification(Latency.fixed(Duration.ofSeconds(2)), Latency.fixed(Duration.ofSeconds(10)))
      .withAttachmentLimit(3);

  private final ManualClock clock = ManualClock.startingAt(Instant.parse("2026-03-01T10:00:00Z"));
  private RealismProxy proxy;
  private Ec2Client ec2;

  @BeforeEach
  void start(MotoServer moto) {
    proxy = RealismProxy.builder().upstream(moto.endpoint()).profile(PROFILE).clock(clock).start();
    proxy.reset();
    ec2 = AwsClients.ec2(proxy.endpoint());
  }

  @AfterEach
  void stop() {
    ec2.close();
    proxy.close();
  }

  @Test
  void repeatedClientTokenReturnsTheSameVolume() {
    String first = ec2.createVolume(r -> r.availabilityZone(ZONE).size(10).clientToken("pvc-1")).volumeId();
    String second = ec2.createVolume(r -> r.availabilityZone(ZONE).size(10).clientToken("pvc-1")).volumeId();

    assertThat(second).isEqualTo(first);
    assertThat(ec2.describeVolumes().volumes()).filteredOn(v -> v.size() == 10).hasSize(1);
  }

  @Test
  void clientTokenWithOtherParametersIsAMismatch() {
    ec2.createVolume(r -> r.availabilityZone(ZONE).size(10).clientToken("pvc-2"));

    assertEc2Error(() -> ec2.createVolume(r -> r.availabilityZone(ZONE).size(11).clientToken("pvc-2")),
        400, "IdempotentParameterMismatch");
  }

  @Test
  void copyVolumesHonoursItsClientToken() {
    String source = availableVolume();
    String first = ec2.copyVolumes(r -> r.sourceVolumeId(source).clientToken("copy-1")).volumes().getFirst()
        .volumeId();

    String again = ec2.copyVolumes(r -> r.sourceVolumeId(source).clientToken("copy-1")).volumes().getFirst()
        .volumeId();

    assertThat(again).isEqualTo(first);
    assertEc2Error(() -> ec2.copyVolumes(r -> r.sourceVolumeId(source).size(50).clientToken("copy-1")),
        400, "IdempotentParameterMismatch");
  }

  @Test
  void attachingAVolumeAttachedElsewhereIsVolumeInUse() {
    String first = runInstance();
    String second = runInstance();
    String volumeId = availableVolume();
    ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(first).device("/dev/xvdba"));

    assertEc2Error(() -> ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(second).device("/dev/xvdba")),
        400, "VolumeInUse");
  }

  @Test
  void attachingAVolumeThatIsStillDetachingIsVolumeInUse() {
    String first = runInstance();
    String second = runInstance();
    String volumeId = availableVolume();
    ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(first).device("/dev/xvdba"));
    clock.advance(Duration.ofSeconds(2));
    ec2.detachVolume(r -> r.volumeId(volumeId));

    assertEc2Error(() -> ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(second).device("/dev/xvdba")),
        400, "VolumeInUse");
    clock.advance(Duration.ofSeconds(2));
    ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(second).device("/dev/xvdba"));
  }

  @Test
  void multiAttachIo2VolumeAttachesToTwoInstances() {
    String first = runInstance();
    String second = runInstance();
    String volumeId = ec2.createVolume(r -> r.availabilityZone(ZONE).size(10).volumeType(VolumeType.IO2).iops(1000)
        .multiAttachEnabled(true)).volumeId();
    clock.advance(Duration.ofSeconds(2));

    ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(first).device("/dev/xvdba"));
    ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(second).device("/dev/xvdba"));
    clock.advance(Duration.ofSeconds(2));

    assertThat(ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst().attachments())
        .extracting(a -> a.instanceId()).containsExactlyInAnyOrder(first, second);
  }

  @Test
  void deviceNameInUseOnTheInstanceIsInvalidParameterValue() {
    String instanceId = runInstance();
    String one = availableVolume();
    String two = availableVolume();
    ec2.attachVolume(r -> r.volumeId(one).instanceId(instanceId).device("/dev/xvdba"));

    assertEc2Error(() -> ec2.attachVolume(r -> r.volumeId(two).instanceId(instanceId).device("/dev/xvdba")),
        400, "InvalidParameterValue");
  }

  @Test
  void deviceNameOfADetachingVolumeIsStillInUse() {
    String instanceId = runInstance();
    String one = availableVolume();
    String two = availableVolume();
    ec2.attachVolume(r -> r.volumeId(one).instanceId(instanceId).device("/dev/xvdba"));
    clock.advance(Duration.ofSeconds(2));
    ec2.detachVolume(r -> r.volumeId(one));

    assertEc2Error(() -> ec2.attachVolume(r -> r.volumeId(two).instanceId(instanceId).device("/dev/xvdba")),
        400, "InvalidParameterValue");
  }

  @Test
  void attachmentsPastTheInstanceLimitAreRefused() {
    String instanceId = runInstance();
    for (String device : new String[] {"/dev/xvdba", "/dev/xvdbb"}) {
      String volumeId = availableVolume();
      ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(instanceId).device(device));
    }
    String third = availableVolume();

    // The root volume counts: root + 2 reach the limit of 3.
    assertEc2Error(() -> ec2.attachVolume(r -> r.volumeId(third).instanceId(instanceId).device("/dev/xvdbc")),
        400, "AttachmentLimitExceeded");
  }

  @Test
  void attachingAVolumeStillCreatingIsIncorrectState() {
    String instanceId = runInstance();
    String volumeId = ec2.createVolume(r -> r.availabilityZone(ZONE).size(10)).volumeId();

    assertEc2Error(() -> ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(instanceId).device("/dev/xvdba")),
        400, "IncorrectState");
  }

  @Test
  void unknownVolumeInstanceAndSnapshotAreNotFound() {
    String instanceId = runInstance();
    String volumeId = availableVolume();

    assertEc2Error(() -> ec2.attachVolume(r -> r.volumeId("vol-0123456789abcdef0").instanceId(instanceId)
        .device("/dev/xvdba")), 400, "InvalidVolume.NotFound");
    assertEc2Error(() -> ec2.attachVolume(r -> r.volumeId(volumeId).instanceId("i-0123456789abcdef0")
        .device("/dev/xvdba")), 400, "InvalidInstanceID.NotFound");
    assertEc2Error(() -> ec2.modifyVolume(r -> r.volumeId("vol-0123456789abcdef0").size(20)),
        400, "InvalidVolume.NotFound");
    assertEc2Error(() -> ec2.describeSnapshots(r -> r.snapshotIds("snap-0123456789abcdef0")),
        400, "InvalidSnapshot.NotFound");
  }

  @Test
  void detachingAVolumeThatIsNotAttachedIsIncorrectState() {
    String volumeId = availableVolume();

    assertEc2Error(() -> ec2.detachVolume(r -> r.volumeId(volumeId)), 400, "IncorrectState");
  }

  @Test
  void modifyingWhileAModificationIsInProgressIsIncorrectModificationState() {
    String volumeId = availableVolume();
    ec2.modifyVolume(r -> r.volumeId(volumeId).size(20));

    assertEc2Error(() -> ec2.modifyVolume(r -> r.volumeId(volumeId).size(30)), 400, "IncorrectModificationState");
    clock.advance(Duration.ofSeconds(2));
    assertEc2Error(() -> ec2.modifyVolume(r -> r.volumeId(volumeId).size(30)), 400, "IncorrectModificationState");
    clock.advance(Duration.ofSeconds(10));
    ec2.modifyVolume(r -> r.volumeId(volumeId).size(30));
  }

  @Test
  void tooManyModificationsOfOneVolumeInADayAreRateExceeded() {
    String volumeId = availableVolume();
    for (int size = 11; size <= 14; size++) {
      int target = size;
      ec2.modifyVolume(r -> r.volumeId(volumeId).size(target));
      clock.advance(Duration.ofSeconds(12));
    }

    assertEc2Error(() -> ec2.modifyVolume(r -> r.volumeId(volumeId).size(15)), 400,
        "VolumeModificationRateExceeded");
    clock.advance(Duration.ofHours(24));
    ec2.modifyVolume(r -> r.volumeId(volumeId).size(15));
  }

  @Test
  void modificationsOfAVolumeNeverModifiedAreNotFound() {
    String volumeId = availableVolume();

    assertEc2Error(() -> ec2.describeVolumesModifications(r -> r.volumeIds(volumeId)), 400,
        "InvalidVolumeModification.NotFound");
  }

  @Test
  void shrinkingAVolumeIsInvalidParameterValue() {
    String volumeId = availableVolume();

    assertEc2Error(() -> ec2.modifyVolume(r -> r.volumeId(volumeId).size(5)), 400, "InvalidParameterValue");
    assertThat(ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst().size()).isEqualTo(10);
  }

  @Test
  void deletingAnAttachedOrDetachingVolumeIsVolumeInUse() {
    String instanceId = runInstance();
    String volumeId = availableVolume();
    ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(instanceId).device("/dev/xvdba"));

    assertEc2Error(() -> ec2.deleteVolume(r -> r.volumeId(volumeId)), 400, "VolumeInUse");
    clock.advance(Duration.ofSeconds(2));
    ec2.detachVolume(r -> r.volumeId(volumeId));
    assertEc2Error(() -> ec2.deleteVolume(r -> r.volumeId(volumeId)), 400, "VolumeInUse");
    clock.advance(Duration.ofSeconds(2));
    ec2.deleteVolume(r -> r.volumeId(volumeId));
  }

  private static void assertEc2Error(ThrowingCallable call, int status, String code) {
    assertThatThrownBy(call).isInstanceOfSatisfying(Ec2Exception.class, e -> {
      assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
      assertThat(e.statusCode()).isEqualTo(status);
    });
  }

  private String runInstance() {
    return ec2.runInstances(r -> r.imageId("ami-12c6146b").minCount(1).maxCount(1).instanceType("m5.large")
        .placement(p -> p.availabilityZone(ZONE))).instances().getFirst().instanceId();
  }

  private String availableVolume() {
    String volumeId = ec2.createVolume(r -> r.availabilityZone(ZONE).size(10)).volumeId();
    clock.advance(Duration.ofSeconds(2));
    return volumeId;
  }
}
