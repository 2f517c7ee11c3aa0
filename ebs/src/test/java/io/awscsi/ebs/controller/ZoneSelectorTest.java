package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.provider.TopologyRequirement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ZoneSelectorTest {

  @Test
  void preferredComesBeforeRequisite() {
    TopologyRequirement t = new TopologyRequirement(List.of(Map.of("topology.kubernetes.io/zone", "us-east-1a")),
        List.of(Map.of("topology.kubernetes.io/zone", "us-east-1b")));
    assertThat(ZoneSelector.pick(t)).isEqualTo(new ZoneSelector.Placement("us-east-1b", ""));
  }

  @Test
  void acceptsTheDriverKeyAndZoneIds() {
    assertThat(ZoneSelector.pick(new TopologyRequirement(List.of(Map.of("topology.ebs.csi.aws.com/zone",
        "us-east-1c")), List.of()))).isEqualTo(new ZoneSelector.Placement("us-east-1c", ""));
    assertThat(ZoneSelector.pick(new TopologyRequirement(List.of(Map.of("topology.k8s.aws/zone-id", "use1-az1")),
        List.of()))).isEqualTo(new ZoneSelector.Placement("", "use1-az1"));
    assertThat(ZoneSelector.pick(TopologyRequirement.NONE).isEmpty()).isTrue();
  }

  @Test
  void reportsOnlyTheKubernetesZoneKey() {
    assertThat(ZoneSelector.accessibleTopology("us-east-1a"))
        .containsExactly(Map.of("topology.kubernetes.io/zone", "us-east-1a"));
  }
}
