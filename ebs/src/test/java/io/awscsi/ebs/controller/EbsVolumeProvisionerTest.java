package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.GIB;
import static io.awscsi.ebs.controller.Requests.assertError;
import static io.awscsi.ebs.controller.Requests.volume;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.metadata.NodeTopology;
import io.awscsi.aws.call.AwsCallError;
import io.awscsi.core.errors.DriverError;
import io.awscsi.core.provider.CapabilityCheck;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.ebs.cloud.Disk;
import io.awscsi.ebs.cloud.EbsCloud;
import io.awscsi.ebs.cloud.Ec2Action;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** CreateVolume, DeleteVolume and ValidateVolumeCapabilities through the in-memory EC2. */
class EbsVolumeProvisionerTest {

  private final InMemoryController controller = new InMemoryController();
  private final io.awscsi.ebs.cloud.InMemoryEbsCloud cloud = controller.cloud;

  @Test
  void createsAnAvailableTaggedVolumeWithoutAnyLookupBeforeCreateVolume() {
    Volume v = controller.create("pvc-1", 7, Map.of("csi.storage.k8s.io/pvc/name", "data",
        "csi.storage.k8s.io/pvc/namespace", "shop", "csi.storage.k8s.io/pv/name", "pvc-1"));

    assertThat(v.capacityBytes()).isEqualTo(7 * GIB);
    assertThat(v.accessibleTopology()).containsExactly(Map.of(NodeTopology.WELL_KNOWN_ZONE_KEY, InMemoryController.ZONE));
    Disk disk = cloud.peek(v.volumeId()).orElseThrow();
    assertThat(disk.state()).isEqualTo(Disk.State.AVAILABLE);
    assertThat(disk.volumeType()).isEqualTo("gp3");
    assertThat(disk.tags()).containsEntry(EbsCloud.VOLUME_NAME_TAG, "pvc-1")
        .containsEntry("kubernetes.io/created-for/pvc/name", "data");
    // As upstream: the ClientToken makes CreateVolume idempotent, so no DescribeVolumes precedes it.
    assertThat(cloud.calls().subList(0, 2)).containsExactly(Ec2Action.DESCRIBE_AVAILABILITY_ZONES,
        Ec2Action.CREATE_VOLUME);
  }

  @Test
  void aRepeatedCreateVolumeGetsTheSameVolumeThroughItsClientToken() {
    Volume first = controller.create("pvc-2", 4, Map.of());
    Volume again = controller.create("pvc-2", 4, Map.of());

    assertThat(again.volumeId()).isEqualTo(first.volumeId());
    assertThat(cloud.allDisks()).hasSize(1);
  }

  @Test
  void aCreateVolumeThatFailedIsRetriedWithTheSameTokenAndMakesOneVolume() {
    cloud.failNext(Ec2Action.CREATE_VOLUME, new AwsCallError.Unavailable("InternalError", "EC2 is down"));
    assertError(() -> controller.create("pvc-3", 4, Map.of()), DriverError.Unavailable.class, "EC2 is down");

    Volume v = controller.create("pvc-3", 4, Map.of());
    assertThat(cloud.allDisks()).extracting(Disk::volumeId).containsExactly(v.volumeId());
  }

  @Test
  void theSameNameWithOtherPropertiesIsAlreadyExistsNamingTheDifference() {
    String id = controller.volume("pvc-4", 4);

    assertError(() -> controller.create("pvc-4", 8, Map.of()), DriverError.AlreadyExists.class, id,
        "size 4 GiB (requested 8 GiB)");
    assertThat(cloud.allDisks()).hasSize(1);
  }

  @Test
  void aNameReusedAfterDeleteVolumeGetsANewVolumeThroughTheNextToken() {
    String first = controller.volume("pvc-5", 4);
    controller.provider.provisioner().deleteVolume(first, Map.of());

    String second = controller.volume("pvc-5", 4);
    assertThat(second).isNotEqualTo(first);
    assertThat(cloud.peek(second)).map(Disk::state).contains(Disk.State.AVAILABLE);
  }

  static Stream<Arguments> zones() {
    String a = InMemoryController.ZONE;
    String b = InMemoryController.OTHER_ZONE;
    String c = InMemoryController.THIRD_ZONE;
    return Stream.of(
        Arguments.of("preferred first among the requisite", List.of(a, b), List.of(b), b),
        Arguments.of("the only requisite zone", List.of(c), List.of(), c),
        Arguments.of("the preferred zone", List.of(), List.of(c), c));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("zones")
  void theZoneComesFromTheAccessibilityRequirements(String why, List<String> requisite, List<String> preferred,
      String expected) {
    TopologyRequirement topology = new TopologyRequirement(
        requisite.stream().map(z -> Map.of(NodeTopology.WELL_KNOWN_ZONE_KEY, z)).toList(),
        preferred.stream().map(z -> Map.of(NodeTopology.WELL_KNOWN_ZONE_KEY, z)).toList());
    Volume v = controller.provider.provisioner().createVolume(new VolumeRequest("pvc-zone", new CapacityRange(GIB, 0),
        List.of(Requests.MOUNT), Map.of(), Map.of(), Map.of(), new VolumeSource.Empty(), topology));

    assertThat(cloud.peek(v.volumeId()).orElseThrow().zone()).isEqualTo(expected);
    assertThat(v.accessibleTopology()).containsExactly(Map.of(NodeTopology.WELL_KNOWN_ZONE_KEY, expected));
  }

  static Stream<Arguments> fromSnapshot() {
    return Stream.of(
        Arguments.of("no capacity: the snapshot's size", 0, 10, null),
        Arguments.of("larger than the snapshot", 20, 20, null),
        Arguments.of("smaller than the snapshot", 5, 0, DriverError.OutOfRange.class));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fromSnapshot")
  void aVolumeFromASnapshotIsAtLeastAsLargeAsIt(String why, int gib, int expectedGiB,
      Class<? extends DriverError> refusal) {
    String snapshot = cloud.existingSnapshot("vol-gone", 10);
    VolumeRequest request = new VolumeRequest("pvc-snap", new CapacityRange(gib * GIB, 0), List.of(Requests.MOUNT),
        Map.of(), Map.of(), Map.of(), new VolumeSource.FromSnapshot(snapshot), Requests.inZone(Ec2Environment.ZONE));
    if (refusal != null) {
      assertError(() -> controller.provider.provisioner().createVolume(request), refusal, snapshot);
      assertThat(cloud.count(Ec2Action.CREATE_VOLUME)).isZero();
      return;
    }
    Volume v = controller.provider.provisioner().createVolume(request);
    Disk disk = cloud.peek(v.volumeId()).orElseThrow();
    assertThat(disk.sizeGiB()).isEqualTo(expectedGiB);
    assertThat(disk.snapshotId()).isEqualTo(snapshot);
    assertThat(v.source()).isEqualTo(new VolumeSource.FromSnapshot(snapshot));
  }

  @Test
  void aMissingSourceIsNotFoundAndAClonesCopyStaysInItsSourcesZone() {
    assertError(() -> controller.provider.provisioner().createVolume(volume("pvc-x", 1, Map.of(), Requests.MOUNT,
        new VolumeSource.FromSnapshot("snap-0000"))), DriverError.NotFound.class, "snap-0000");
    assertError(() -> controller.provider.provisioner().createVolume(volume("pvc-y", 1, Map.of(), Requests.MOUNT,
        new VolumeSource.FromVolume("vol-0000"))), DriverError.NotFound.class, "vol-0000");

    String source = controller.volume("pvc-src", 3);
    Volume clone = controller.provider.provisioner().createVolume(volume("pvc-clone", 3, Map.of(), Requests.MOUNT,
        new VolumeSource.FromVolume(source)));
    assertThat(cloud.count(Ec2Action.COPY_VOLUMES)).isEqualTo(1);
    assertThat(cloud.peek(clone.volumeId()).orElseThrow().zone()).isEqualTo(InMemoryController.ZONE);
  }

  @Test
  void deleteVolumeIsIdempotentAndRefusesAnAttachedVolumeNamingTheInstance() {
    String id = controller.volume("pvc-del", 2);
    String node = cloud.runInstance(InMemoryController.ZONE);
    controller.provider.attacher().orElseThrow().publish(Requests.publish(id, node, Requests.MOUNT));

    assertError(() -> controller.provider.provisioner().deleteVolume(id, Map.of()),
        DriverError.FailedPrecondition.class, node);

    controller.provider.attacher().orElseThrow().unpublish(id, node, Map.of());
    controller.provider.provisioner().deleteVolume(id, Map.of());
    controller.provider.provisioner().deleteVolume(id, Map.of());
    assertThat(cloud.peek(id)).isEmpty();
  }

  @Test
  void capabilitiesAreCheckedAgainstTheVolume() {
    String id = controller.volume("pvc-caps", 2);

    assertThat(controller.provider.provisioner().validateCapabilities(id, List.of(Requests.MOUNT), Map.of(),
        Map.of())).isInstanceOf(CapabilityCheck.Confirmed.class);
    assertThat(controller.provider.provisioner().validateCapabilities(id, List.of(Requests.MULTI_BLOCK), Map.of(),
        Map.of())).isInstanceOf(CapabilityCheck.Unsupported.class);
    assertError(() -> controller.provider.provisioner().validateCapabilities("vol-0000", List.of(Requests.MOUNT),
        Map.of(), Map.of()), DriverError.NotFound.class, "vol-0000");
  }
}
