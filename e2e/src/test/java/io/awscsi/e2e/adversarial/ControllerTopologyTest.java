package io.awscsi.e2e.adversarial;

import static io.awscsi.e2e.adversarial.ControllerSupport.GIB;
import static io.awscsi.e2e.adversarial.ControllerSupport.createVolume;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CapacityRange;
import csi.v1.CreateVolumeRequest;
import csi.v1.Topology;
import csi.v1.TopologyRequirement;
import csi.v1.VolumeContentSource;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.awscsi.e2e.adversarial.DriverFixture.Mode;
import io.awscsi.local.LocalAws;
import io.grpc.Status;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * Issue 12 item 2, over the EBS controller socket: zones are checked against the region's zones before any EC2
 * call that makes something; a volume never goes to an unknown zone, and no shape of accessibility requirements
 * answers INTERNAL (the old code created the volume in "mars-1z", then answered INTERNAL on every retry).
 */
@Tag("integration")
class ControllerTopologyTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  static final String ZONE = "topology.kubernetes.io/zone";
  static final String EBS_ZONE = "topology.ebs.csi.aws.com/zone";
  static final String ZONE_ID = "topology.k8s.aws/zone-id";

  private static DriverProcess ebs;
  private static String firstZone;
  private static String secondZone;
  private static String secondZoneId;

  @BeforeAll
  static void start() {
    ebs = FX.start(Driver.EBS, Mode.CONTROLLER);
    try (Ec2Client ec2 = LocalAws.ec2(FX.aws().endpoint())) {
      var zones = ec2.describeAvailabilityZones().availabilityZones();
      firstZone = zones.get(0).zoneName();
      secondZone = zones.get(1).zoneName();
      secondZoneId = zones.get(1).zoneId();
    }
  }

  private static Topology segment(Map<String, String> segments) {
    return Topology.newBuilder().putAllSegments(segments).build();
  }

  private static CreateVolumeRequest request(String name, List<Map<String, String>> requisite,
      List<Map<String, String>> preferred) {
    TopologyRequirement.Builder t = TopologyRequirement.newBuilder();
    requisite.forEach(s -> t.addRequisite(segment(s)));
    preferred.forEach(s -> t.addPreferred(segment(s)));
    return createVolume(name).setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB))
        .setAccessibilityRequirements(t).build();
  }

  private static String zoneOf(CreateVolumeRequest request) {
    return CsiAssert.ok(() -> ebs.controller().createVolume(request)).getVolume().getAccessibleTopology(0)
        .getSegmentsOrThrow(ZONE);
  }

  /** CreateVolume requisite [mars-1z], twice -> INVALID_ARGUMENT naming the requisite; EC2 made nothing. */
  @Test
  void aRequisiteOfOnlyUnknownZonesIsRefusedBeforeAnyVolumeIsMade() {
    long creates = FX.aws().stats().calls("ec2", "CreateVolume");
    for (int attempt = 0; attempt < 2; attempt++) {
      Status s = CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "accessibility_requirements.requisite",
          () -> ebs.controller().createVolume(request("pvc-mars", List.of(Map.of(ZONE, "mars-1z")), List.of())));
      assertThat(s.getDescription()).contains("mars-1z", firstZone);
    }
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "accessibility_requirements.requisite",
        () -> ebs.controller().createVolume(request("pvc-mars-id", List.of(Map.of(ZONE_ID, "mars-az9")),
            List.of())));

    assertThat(FX.aws().stats().calls("ec2", "CreateVolume")).isEqualTo(creates);
    assertThat(ControllerSupport.volumesNamed(FX, "pvc-mars")).isEmpty();
  }

  /** Mixed shapes that name at least one real zone -> OK in that zone, never in an unknown one. */
  @Test
  void unknownZonesAreSkippedAndKnownOnesChosen() {
    assertThat(zoneOf(request("pvc-mixed", List.of(Map.of(ZONE, "mars-1z"), Map.of(ZONE, secondZone)),
        List.of()))).isEqualTo(secondZone);
    assertThat(zoneOf(request("pvc-pref-mars", List.of(), List.of(Map.of(ZONE, "mars-1z")))))
        .as("preferred without requisite, unknown: the region's first zone").isEqualTo(firstZone);
    assertThat(zoneOf(request("pvc-pref-known", List.of(), List.of(Map.of(EBS_ZONE, secondZone)))))
        .isEqualTo(secondZone);
    assertThat(zoneOf(request("pvc-pref-outside", List.of(Map.of(ZONE, firstZone)),
        List.of(Map.of(ZONE, secondZone))))).as("a preferred zone the requisite excludes is skipped")
        .isEqualTo(firstZone);
    assertThat(zoneOf(request("pvc-zone-id", List.of(Map.of(ZONE_ID, secondZoneId)), List.of())))
        .isEqualTo(secondZone);
  }

  /** Segments without a zone key (empty, or only other keys) set no zone -> OK in the region's first zone. */
  @Test
  void segmentsWithoutAZoneAllowEveryZone() {
    assertThat(zoneOf(request("pvc-empty-segment", List.of(Map.of()), List.of()))).isEqualTo(firstZone);
    assertThat(zoneOf(request("pvc-other-keys", List.of(Map.of("kubernetes.io/os", "linux",
        "topology.example.com/rack", "r1")), List.of(Map.of())))).isEqualTo(firstZone);
    assertThat(zoneOf(createVolume("pvc-empty-requirements").setCapacityRange(CapacityRange.newBuilder()
        .setRequiredBytes(GIB)).setAccessibilityRequirements(TopologyRequirement.getDefaultInstance()).build()))
        .isEqualTo(firstZone);
  }

  /** Contradictory or empty zone values -> INVALID_ARGUMENT naming the segment. */
  @Test
  void contradictoryOrEmptyZonesAreInvalidArgumentNamingTheSegment() {
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "accessibility_requirements.requisite[0]",
        () -> ebs.controller().createVolume(request("pvc-two-zones", List.of(Map.of(ZONE, firstZone,
            EBS_ZONE, secondZone)), List.of())));
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "accessibility_requirements.requisite[1]",
        () -> ebs.controller().createVolume(request("pvc-name-and-id", List.of(Map.of(ZONE, secondZone),
            Map.of(ZONE, firstZone, ZONE_ID, secondZoneId)), List.of())));
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "accessibility_requirements.requisite[0]",
        () -> ebs.controller().createVolume(request("pvc-empty-zone", List.of(Map.of(ZONE, "")), List.of())));
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "accessibility_requirements.preferred[0]",
        () -> ebs.controller().createVolume(request("pvc-blank-pref", List.of(), List.of(Map.of(ZONE, "  ")))));
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "accessibility_requirements",
        () -> ebs.controller().createVolume(request("pvc-control", List.of(Map.of(ZONE, "us-east-1a\n")),
            List.of())));
    assertThat(ControllerSupport.volumesNamed(FX, "pvc-two-zones")).isEmpty();
  }

  /** A clone whose requisite excludes its source's zone -> RESOURCE_EXHAUSTED, before CopyVolumes. */
  @Test
  void aCloneOutsideItsSourcesZoneIsRefusedBeforeCopying() {
    String source = CsiAssert.ok(() -> ebs.controller().createVolume(request("pvc-clone-src",
        List.of(Map.of(ZONE, firstZone)), List.of()))).getVolume().getVolumeId();
    long copies = FX.aws().stats().calls("ec2", "CopyVolumes");

    CsiAssert.refused(Status.Code.RESOURCE_EXHAUSTED, "zone", () -> ebs.controller().createVolume(
        request("pvc-clone", List.of(Map.of(ZONE, secondZone)), List.of()).toBuilder()
            .setVolumeContentSource(VolumeContentSource.newBuilder().setVolume(VolumeContentSource.VolumeSource
                .newBuilder().setVolumeId(source))).build()));
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "accessibility_requirements.requisite", () -> ebs.controller()
        .createVolume(request("pvc-clone-mars", List.of(Map.of(ZONE, "mars-1z")), List.of()).toBuilder()
            .setVolumeContentSource(VolumeContentSource.newBuilder().setVolume(VolumeContentSource.VolumeSource
                .newBuilder().setVolumeId(source))).build()));

    assertThat(FX.aws().stats().calls("ec2", "CopyVolumes")).isEqualTo(copies);
  }

  /** The same name again with a requisite that still allows the volume's zone -> OK, the same volume. */
  @Test
  void aRepeatWhoseRequisiteStillAllowsTheZoneIsTheSameVolume() {
    String first = CsiAssert.ok(() -> ebs.controller().createVolume(request("pvc-repeat",
        List.of(Map.of(ZONE, secondZone)), List.of()))).getVolume().getVolumeId();
    String again = CsiAssert.ok(() -> ebs.controller().createVolume(request("pvc-repeat",
        List.of(Map.of(ZONE, firstZone), Map.of(ZONE, secondZone)), List.of()))).getVolume().getVolumeId();

    assertThat(again).isEqualTo(first);
    CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> ebs.controller().createVolume(request("pvc-repeat",
        List.of(Map.of(ZONE, firstZone)), List.of())));
  }
}
