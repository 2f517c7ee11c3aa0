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

/**
 * Outposts, which moto ignores: a volume, snapshot, subnet or instance made on an Outpost keeps its OutpostArn, and
 * AttachVolume refuses to mix an Outpost with the Region or with another Outpost, as EC2 does.
 */
@Tag("integration")
@ExtendWith(MotoExtension.class)
class Ec2OutpostsIntegrationTest {

  private static final String ZONE = "us-east-1a";
  private static final String OUTPOST = "arn:aws:outposts:us-east-1:123456789012:outpost/op-0123456789abcdef0";
  private static final String OTHER_OUTPOST = "arn:aws:outposts:us-east-1:123456789012:outpost/op-0fedcba98765432f";
  private static final RealismProfile PROFILE = RealismProfile.fast()
      .withVolumeCreation(Latency.fixed(Duration.ofSeconds(2)))
      .withVolumeAttach(Latency.fixed(Duration.ofSeconds(2)));

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
  void aVolumeCreatedOnAnOutpostKeepsItsOutpostArnAndACopyStaysThere() {
    var created = ec2.createVolume(r -> r.availabilityZone(ZONE).size(10).volumeType("gp2").outpostArn(OUTPOST));
    assertThat(created.outpostArn()).isEqualTo(OUTPOST);
    String regional = ec2.createVolume(r -> r.availabilityZone(ZONE).size(10)).volumeId();
    clock.advance(Duration.ofSeconds(2));

    assertThat(ec2.describeVolumes(r -> r.volumeIds(created.volumeId())).volumes().getFirst().outpostArn())
        .isEqualTo(OUTPOST);
    assertThat(ec2.describeVolumes(r -> r.volumeIds(regional)).volumes().getFirst().outpostArn()).isNull();

    String copy = ec2.copyVolumes(r -> r.sourceVolumeId(created.volumeId())).volumes().getFirst().volumeId();
    assertThat(ec2.describeVolumes(r -> r.volumeIds(copy)).volumes().getFirst().outpostArn()).isEqualTo(OUTPOST);
  }

  @Test
  void aMalformedOutpostArnIsInvalidParameterValue() {
    assertEc2Error(() -> ec2.createVolume(r -> r.availabilityZone(ZONE).size(10).outpostArn("op-0123456789abcdef0")),
        "InvalidParameterValue", "outpostArn");
  }

  @Test
  void aLocalSnapshotIsOnlyOfAVolumeOnThatOutpostAndKeepsItsOutpostArn() {
    String onOutpost = volume(OUTPOST);
    String regional = volume(null);

    String local = ec2.createSnapshot(r -> r.volumeId(onOutpost).outpostArn(OUTPOST)).snapshotId();
    assertThat(ec2.describeSnapshots(r -> r.snapshotIds(local)).snapshots().getFirst().outpostArn())
        .isEqualTo(OUTPOST);
    String inRegion = ec2.createSnapshot(r -> r.volumeId(onOutpost)).snapshotId();
    assertThat(ec2.describeSnapshots(r -> r.snapshotIds(inRegion)).snapshots().getFirst().outpostArn()).isNull();

    assertEc2Error(() -> ec2.createSnapshot(r -> r.volumeId(regional).outpostArn(OUTPOST)),
        "InvalidParameterValue", regional);
    assertEc2Error(() -> ec2.createSnapshot(r -> r.volumeId(onOutpost).outpostArn(OTHER_OUTPOST)),
        "InvalidParameterValue", onOutpost);
  }

  @Test
  void attachVolumeRefusesToMixAnOutpostWithTheRegionOrAnotherOutpost() {
    String outpostInstance = instanceOn(OUTPOST);
    String regionInstance = ec2.runInstances(r -> r.imageId("ami-12c6146b").minCount(1).maxCount(1)
        .instanceType("m5.large").placement(p -> p.availabilityZone(ZONE))).instances().getFirst().instanceId();
    assertThat(ec2.describeInstances(r -> r.instanceIds(outpostInstance)).reservations().getFirst().instances()
        .getFirst().outpostArn()).isEqualTo(OUTPOST);

    String onOutpost = volume(OUTPOST);
    String regional = volume(null);
    String onOther = volume(OTHER_OUTPOST);

    assertEc2Error(() -> ec2.attachVolume(r -> r.volumeId(onOutpost).instanceId(regionInstance).device("/dev/xvdf")),
        "InvalidParameterValue", OUTPOST);
    assertEc2Error(() -> ec2.attachVolume(r -> r.volumeId(regional).instanceId(outpostInstance).device("/dev/xvdf")),
        "InvalidParameterValue", OUTPOST);
    assertEc2Error(() -> ec2.attachVolume(r -> r.volumeId(onOther).instanceId(outpostInstance).device("/dev/xvdf")),
        "InvalidParameterValue", OTHER_OUTPOST);

    assertThat(ec2.attachVolume(r -> r.volumeId(onOutpost).instanceId(outpostInstance).device("/dev/xvdf"))
        .stateAsString()).isEqualTo("attaching");
    assertThat(ec2.attachVolume(r -> r.volumeId(regional).instanceId(regionInstance).device("/dev/xvdf"))
        .stateAsString()).isEqualTo("attaching");
  }

  private String instanceOn(String outpostArn) {
    String vpc = ec2.createVpc(r -> r.cidrBlock("10.20.0.0/16")).vpc().vpcId();
    var subnet = ec2.createSubnet(r -> r.vpcId(vpc).cidrBlock("10.20.1.0/24").availabilityZone(ZONE)
        .outpostArn(outpostArn)).subnet();
    assertThat(subnet.outpostArn()).isEqualTo(outpostArn);
    return ec2.runInstances(r -> r.imageId("ami-12c6146b").minCount(1).maxCount(1).instanceType("m5.large")
        .subnetId(subnet.subnetId())).instances().getFirst().instanceId();
  }

  private String volume(String outpostArn) {
    String id = ec2.createVolume(r -> r.availabilityZone(ZONE).size(10).outpostArn(outpostArn)).volumeId();
    clock.advance(Duration.ofSeconds(2));
    return id;
  }

  private static void assertEc2Error(ThrowingCallable call, String code, String messagePart) {
    assertThatThrownBy(call).isInstanceOfSatisfying(Ec2Exception.class, e -> {
      assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
      assertThat(e.awsErrorDetails().errorMessage()).contains(messagePart);
    });
  }
}
