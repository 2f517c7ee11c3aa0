package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.GIB;
import static io.awscsi.ebs.controller.Requests.publish;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.aws.metadata.InstanceMetadata;
import io.awscsi.aws.metadata.NodeTopology;
import io.awscsi.aws.metadata.OutpostArn;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.Snapshot;
import io.awscsi.core.provider.SnapshotRequest;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeAttacher;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.realism.RealismProfile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node on an Outpost against moto behind the EC2 realism layer (which models Outposts): CreateVolume with the
 * node's topology sends OutpostArn, DescribeVolumes reads it back, the volume attaches to the Outpost node only, and a
 * VolumeSnapshotClass {@code outpostArn} makes a local snapshot.
 */
@org.junit.jupiter.api.Tag("integration")
class OutpostIntegrationTest {

  private static final String ARN = "arn:aws:outposts:us-east-1:123456789012:outpost/op-0123456789abcdef0";

  private static Ec2Environment env;
  private EbsControllerProvider provider;

  @BeforeAll
  static void startEc2() {
    env = Ec2Environment.start(RealismProfile.fast());
  }

  @AfterAll
  static void stopEc2() {
    env.close();
  }

  @BeforeEach
  void fresh() {
    env.reset();
    provider = env.provider(Ec2Environment.testOptions(), new MetricsRegistry());
  }

  /** The topology NodeGetInfo reports on an instance on the Outpost. */
  private static TopologyRequirement outpostNode() {
    InstanceMetadata node = new InstanceMetadata("i-0123456789abcdef0", "m5.large", "us-east-1",
        Ec2Environment.ZONE, null, 1, 0, OutpostArn.parse(ARN).orElseThrow());
    Map<String, String> segments = NodeTopology.segments(node, NodeTopology.EBS_DRIVER_NAME);
    return new TopologyRequirement(List.of(segments), List.of(segments));
  }

  /** An instance launched into a subnet on the Outpost, as EC2 places one there. */
  private static String instanceOnOutpost() {
    String vpc = env.ec2.createVpc(r -> r.cidrBlock("10.30.0.0/16")).vpc().vpcId();
    String subnet = env.ec2.createSubnet(r -> r.vpcId(vpc).cidrBlock("10.30.1.0/24")
        .availabilityZone(Ec2Environment.ZONE).outpostArn(ARN)).subnet().subnetId();
    return env.ec2.runInstances(r -> r.imageId("ami-12c6146b").minCount(1).maxCount(1).instanceType("m5.large")
        .subnetId(subnet)).instances().getFirst().instanceId();
  }

  private Volume create(String name) {
    return provider.provisioner().createVolume(new VolumeRequest(name, new CapacityRange(2 * GIB, 0),
        List.of(Requests.MOUNT), Map.of("type", "gp2"), Map.of(), Map.of(), new VolumeSource.Empty(),
        outpostNode()));
  }

  @Test
  void aVolumeForAnOutpostNodeIsCreatedOnTheOutpostAndReportedSo() {
    Volume v = create("pvc-outpost");

    assertThat(env.ec2.describeVolumes(r -> r.volumeIds(v.volumeId())).volumes().getFirst().outpostArn())
        .isEqualTo(ARN);
    assertThat(v.accessibleTopology()).singleElement().satisfies(segment -> assertThat(segment)
        .containsEntry(NodeTopology.WELL_KNOWN_ZONE_KEY, Ec2Environment.ZONE)
        .containsEntry(NodeTopology.EBS_OUTPOST_ID_KEY, "op-0123456789abcdef0")
        .containsEntry(NodeTopology.EBS_ACCOUNT_ID_KEY, "123456789012")
        .containsEntry(NodeTopology.EBS_REGION_KEY, "us-east-1")
        .containsEntry(NodeTopology.EBS_PARTITION_KEY, "aws"));
  }

  @Test
  void theOutpostVolumeAttachesToTheOutpostNodeAndNotToARegionNode() {
    VolumeAttacher attacher = provider.attacher().orElseThrow();
    String vol = create("pvc-attach").volumeId();
    String regionNode = env.runInstance(Ec2Environment.ZONE);
    String outpostNode = instanceOnOutpost();

    assertThatThrownBy(() -> attacher.publish(publish(vol, regionNode, Requests.MOUNT)))
        .isInstanceOf(DriverException.class).hasMessageContaining(ARN);
    assertThat(attacher.publish(publish(vol, outpostNode, Requests.MOUNT))).containsKey("devicePath");
  }

  @Test
  void aSnapshotClassOutpostArnMakesALocalSnapshot() {
    String vol = create("pvc-snap").volumeId();

    Snapshot s = provider.snapshots().orElseThrow().createSnapshot(new SnapshotRequest(vol, "snap-local",
        Map.of("outpostArn", ARN), Map.of()));

    assertThat(env.ec2.describeSnapshots(r -> r.snapshotIds(s.snapshotId())).snapshots().getFirst().outpostArn())
        .isEqualTo(ARN);
  }
}
