package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.ebs.cloud.Zone;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ZoneSelectorTest {

  static final Zone A = new Zone("us-east-1a", "use1-az1");
  static final Zone B = new Zone("us-east-1b", "use1-az2");
  static final Zone C = new Zone("us-east-1c", "use1-az3");
  static final List<Zone> REGION = List.of(A, B, C);
  static final String ZONE = "topology.kubernetes.io/zone";

  private static TopologyRequirement requisite(List<Map<String, String>> requisite) {
    return new TopologyRequirement(requisite, List.of());
  }

  @Test
  void preferredComesBeforeRequisite() {
    TopologyRequirement t = new TopologyRequirement(List.of(Map.of(ZONE, "us-east-1a"), Map.of(ZONE, "us-east-1b")),
        List.of(Map.of(ZONE, "us-east-1b")));
    assertThat(ZoneSelector.pick(t, REGION)).isEqualTo(B);
  }

  @Test
  void aPreferredZoneTheRequisiteExcludesIsSkipped() {
    TopologyRequirement t = new TopologyRequirement(List.of(Map.of(ZONE, "us-east-1c")),
        List.of(Map.of(ZONE, "us-east-1a"), Map.of(ZONE, "mars-1z")));
    assertThat(ZoneSelector.pick(t, REGION)).isEqualTo(C);
  }

  @Test
  void acceptsTheDriverKeyAndZoneIdsAndDefaultsToTheRegionsFirstZone() {
    assertThat(ZoneSelector.pick(requisite(List.of(Map.of("topology.ebs.csi.aws.com/zone", "us-east-1c"))),
        REGION)).isEqualTo(C);
    assertThat(ZoneSelector.pick(requisite(List.of(Map.of("topology.k8s.aws/zone-id", "use1-az2"))), REGION))
        .isEqualTo(B);
    assertThat(ZoneSelector.pick(TopologyRequirement.NONE, REGION)).isEqualTo(A);
  }

  @Test
  void unknownZonesAreNeverChosen() {
    assertThat(ZoneSelector.pick(requisite(List.of(Map.of(ZONE, "mars-1z"), Map.of(ZONE, "us-east-1b"))), REGION))
        .isEqualTo(B);
    assertThat(ZoneSelector.pick(new TopologyRequirement(List.of(), List.of(Map.of(ZONE, "mars-1z"))), REGION))
        .as("preferred only: a preference, not a requirement").isEqualTo(A);
  }

  @Test
  void segmentsWithoutAZoneKeyAllowEveryZone() {
    assertThat(ZoneSelector.pick(requisite(List.of(Map.of())), REGION)).isEqualTo(A);
    assertThat(ZoneSelector.pick(requisite(List.of(Map.of("kubernetes.io/os", "linux"))), REGION)).isEqualTo(A);
    assertThat(ZoneSelector.pick(requisite(List.of(Map.of("topology.kubernetes.io/region", "mars"),
        Map.of(ZONE, "us-east-1c"))), REGION)).isEqualTo(C);
  }

  @Test
  void aRequisiteOfOnlyUnknownZonesIsInvalidArgumentNamingIt() {
    assertInvalid(requisite(List.of(Map.of(ZONE, "mars-1z"))), "accessibility_requirements.requisite",
        "zone mars-1z");
    assertInvalid(requisite(List.of(Map.of("topology.k8s.aws/zone-id", "mars-az9"))),
        "accessibility_requirements.requisite", "zone id mars-az9");
  }

  @Test
  void contradictoryOrEmptySegmentsAreInvalidArgument() {
    assertInvalid(requisite(List.of(Map.of(ZONE, "us-east-1a", "topology.ebs.csi.aws.com/zone", "us-east-1b"))),
        "accessibility_requirements.requisite[0]", "two zones");
    assertInvalid(requisite(List.of(Map.of(ZONE, "us-east-1a", "topology.k8s.aws/zone-id", "use1-az2"))),
        "accessibility_requirements.requisite[0]", "two zones");
    assertInvalid(requisite(List.of(Map.of(ZONE, ""))), "accessibility_requirements.requisite[0]", "is empty");
    assertInvalid(new TopologyRequirement(List.of(), List.of(Map.of(ZONE, " "))),
        "accessibility_requirements.preferred[0]", "is empty");
  }

  @Test
  void allowsTellsWhetherASourceZoneFitsTheRequisite() {
    assertThat(ZoneSelector.allows(requisite(List.of(Map.of(ZONE, "us-east-1b"))), REGION, "us-east-1b")).isTrue();
    assertThat(ZoneSelector.allows(requisite(List.of(Map.of(ZONE, "us-east-1b"))), REGION, "us-east-1a")).isFalse();
    assertThat(ZoneSelector.allows(TopologyRequirement.NONE, REGION, "us-east-1c")).isTrue();
  }

  @Test
  void reportsOnlyTheKubernetesZoneKey() {
    assertThat(ZoneSelector.accessibleTopology("us-east-1a", "")).containsExactly(Map.of(ZONE, "us-east-1a"));
    assertThat(ZoneSelector.accessibleTopology("", "")).isEmpty();
  }

  private static void assertInvalid(TopologyRequirement t, String field, String text) {
    assertThatThrownBy(() -> ZoneSelector.pick(t, REGION)).isInstanceOfSatisfying(DriverException.class, e -> {
      assertThat(e.error()).isInstanceOf(DriverError.InvalidArgument.class);
      assertThat(((DriverError.InvalidArgument) e.error()).field()).isEqualTo(field);
    }).hasMessageContaining(text);
  }
}
