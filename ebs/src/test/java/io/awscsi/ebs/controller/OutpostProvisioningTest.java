package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.GIB;
import static io.awscsi.ebs.controller.Requests.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.metadata.InstanceMetadata;
import io.awscsi.aws.metadata.NodeTopology;
import io.awscsi.aws.metadata.OutpostArn;
import io.awscsi.core.errors.DriverError;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.ebs.cloud.Disk;
import io.awscsi.ebs.cloud.InMemoryEbsCloud;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * CreateVolume for a node on an Outpost, through the in-memory EC2: the Outpost ARN is rebuilt from the node's
 * segments and sent with CreateVolume, and the volume is reported accessible from that Outpost only (upstream's
 * {@code getOutpostArn}, {@code checkSourceTopology} and {@code newCreateVolumeResponse}).
 */
class OutpostProvisioningTest {

  private static final String ARN = "arn:aws:outposts:us-east-1:111122223333:outpost/op-0123456789abcdef0";
  private static final String OTHER_ARN = "arn:aws:outposts:us-east-1:111122223333:outpost/op-0fedcba987654321f";

  private final InMemoryController controller = new InMemoryController();
  private final InMemoryEbsCloud cloud = controller.cloud;

  /** What NodeGetInfo reports on a node on {@code arn} in the controller's zone (the segments the CO passes on). */
  private static Map<String, String> nodeOn(String arn) {
    InstanceMetadata node = new InstanceMetadata("i-0123456789abcdef0", "m5.large", "us-east-1",
        InMemoryController.ZONE, null, 1, 0, OutpostArn.parse(arn).orElseThrow());
    return NodeTopology.segments(node, NodeTopology.EBS_DRIVER_NAME);
  }

  private Volume create(String name, TopologyRequirement topology, VolumeSource source) {
    return controller.provider.provisioner().createVolume(new VolumeRequest(name, new CapacityRange(4 * GIB, 0),
        List.of(Requests.MOUNT), Map.of(), Map.of(), Map.of(), source, topology));
  }

  private Volume create(String name, TopologyRequirement topology) {
    return create(name, topology, new VolumeSource.Empty());
  }

  private static Map<String, String> accessibleFrom(String arn) {
    Map<String, String> expected = new HashMap<>(Map.of(NodeTopology.WELL_KNOWN_ZONE_KEY, InMemoryController.ZONE));
    expected.putAll(NodeTopology.outpostSegments(OutpostArn.parse(arn).orElseThrow()));
    return expected;
  }

  @Test
  void aVolumeForANodeOnAnOutpostIsCreatedOnThatOutpostAndAccessibleFromItOnly() {
    Volume v = create("pvc-op", new TopologyRequirement(List.of(nodeOn(ARN)), List.of(nodeOn(ARN))));

    assertThat(cloud.peek(v.volumeId()).orElseThrow().outpostArn()).isEqualTo(ARN);
    assertThat(v.accessibleTopology()).containsExactly(accessibleFrom(ARN));
    assertThat(v.accessibleTopology().getFirst())
        .containsEntry("topology.ebs.csi.aws.com/outpost-id", "op-0123456789abcdef0")
        .containsEntry("topology.ebs.csi.aws.com/account-id", "111122223333")
        .containsEntry("topology.ebs.csi.aws.com/region", "us-east-1")
        .containsEntry("topology.ebs.csi.aws.com/partition", "aws");
  }

  @Test
  void thePreferredSegmentsOutpostWinsOverTheRequisitesAsUpstream() {
    Volume v = create("pvc-pref", new TopologyRequirement(List.of(nodeOn(OTHER_ARN), nodeOn(ARN)),
        List.of(nodeOn(ARN))));
    assertThat(cloud.peek(v.volumeId()).orElseThrow().outpostArn()).isEqualTo(ARN);

    Volume requisiteOnly = create("pvc-req", new TopologyRequirement(List.of(nodeOn(OTHER_ARN)), List.of()));
    assertThat(cloud.peek(requisiteOnly.volumeId()).orElseThrow().outpostArn()).isEqualTo(OTHER_ARN);
  }

  @Test
  void aNodeInTheRegionGetsARegionVolumeWithTheZoneSegmentOnly() {
    Volume v = create("pvc-region", Requests.inZone(InMemoryController.ZONE));

    assertThat(cloud.peek(v.volumeId()).orElseThrow().outpostArn()).isEmpty();
    assertThat(v.accessibleTopology())
        .containsExactly(Map.of(NodeTopology.WELL_KNOWN_ZONE_KEY, InMemoryController.ZONE));
  }

  @Test
  void incompleteOrMalformedOutpostSegmentsAreInvalidArgumentNamingTheSegmentAndCreateNothing() {
    Map<String, String> noAccount = new HashMap<>(nodeOn(ARN));
    noAccount.remove(NodeTopology.EBS_ACCOUNT_ID_KEY);
    assertError(() -> create("pvc-bad", new TopologyRequirement(List.of(), List.of(noAccount))),
        DriverError.InvalidArgument.class, "accessibility_requirements.preferred[0]",
        "topology.ebs.csi.aws.com/account-id is missing");

    Map<String, String> badId = new HashMap<>(nodeOn(ARN));
    badId.put(NodeTopology.EBS_OUTPOST_ID_KEY, "not-an-outpost");
    assertError(() -> create("pvc-bad", new TopologyRequirement(List.of(Map.of(), badId), List.of())),
        DriverError.InvalidArgument.class, "accessibility_requirements.requisite[1]", "not an Outpost ARN");

    assertThat(cloud.allDisks()).isEmpty();
  }

  @Test
  void aRestoreOntoAnOutpostSendsTheSnapshotWithTheOutpost() {
    String snapshot = cloud.existingSnapshot("vol-gone", 2);

    Volume v = create("pvc-restore", new TopologyRequirement(List.of(nodeOn(ARN)), List.of()),
        new VolumeSource.FromSnapshot(snapshot));

    Disk disk = cloud.peek(v.volumeId()).orElseThrow();
    assertThat(disk.snapshotId()).isEqualTo(snapshot);
    assertThat(disk.outpostArn()).isEqualTo(ARN);
    assertThat(v.accessibleTopology()).containsExactly(accessibleFrom(ARN));
  }

  @Test
  void aCloneStaysOnItsSourcesOutpostAndARequisiteNamingAnotherOutpostIsResourceExhausted() {
    Volume source = create("pvc-src", new TopologyRequirement(List.of(nodeOn(ARN)), List.of()));

    Volume clone = create("pvc-clone", new TopologyRequirement(List.of(nodeOn(ARN)), List.of()),
        new VolumeSource.FromVolume(source.volumeId()));
    assertThat(cloud.peek(clone.volumeId()).orElseThrow().outpostArn()).isEqualTo(ARN);
    assertThat(clone.accessibleTopology()).containsExactly(accessibleFrom(ARN));

    assertError(() -> create("pvc-clone-2", new TopologyRequirement(List.of(nodeOn(OTHER_ARN)), List.of()),
        new VolumeSource.FromVolume(source.volumeId())), DriverError.ResourceExhausted.class, ARN);
  }

  @Test
  void theSameNameOnAnotherOutpostIsAlreadyExistsNamingTheOutposts() {
    Volume first = create("pvc-twice", new TopologyRequirement(List.of(nodeOn(ARN)), List.of()));

    assertError(() -> create("pvc-twice", new TopologyRequirement(List.of(nodeOn(OTHER_ARN)), List.of())),
        DriverError.AlreadyExists.class, first.volumeId(), "on Outpost " + ARN, "requested Outpost " + OTHER_ARN);
  }
}
