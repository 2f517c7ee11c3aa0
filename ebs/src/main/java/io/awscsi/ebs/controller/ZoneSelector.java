package io.awscsi.ebs.controller;

import io.awscsi.core.provider.TopologyRequirement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Picks where a new volume goes from the CO's accessibility requirements: the first preferred, else requisite. */
final class ZoneSelector {

  /** The key reported in accessible_topology (upstream reports only this one). */
  static final String ZONE_KEY = "topology.kubernetes.io/zone";
  /** The driver's own zone key, accepted as upstream accepts it. */
  static final String EBS_ZONE_KEY = "topology.ebs.csi.aws.com/zone";
  /** A zone id (use1-az1), passed to EC2 as AvailabilityZoneId. */
  static final String ZONE_ID_KEY = "topology.k8s.aws/zone-id";

  /** A zone name or a zone id; both empty when the CO expressed no zone. */
  record Placement(String zone, String zoneId) {
    boolean isEmpty() {
      return zone.isEmpty() && zoneId.isEmpty();
    }
  }

  private ZoneSelector() {}

  static Placement pick(TopologyRequirement topology) {
    List<Map<String, String>> ordered = new ArrayList<>(topology.preferred());
    ordered.addAll(topology.requisite());
    for (Map<String, String> segment : ordered) {
      String zone = segment.getOrDefault(ZONE_KEY, segment.getOrDefault(EBS_ZONE_KEY, ""));
      String zoneId = segment.getOrDefault(ZONE_ID_KEY, "");
      if (!zone.isEmpty() || !zoneId.isEmpty()) {
        return new Placement(zone, zone.isEmpty() ? zoneId : "");
      }
    }
    return new Placement("", "");
  }

  static List<Map<String, String>> accessibleTopology(String zone) {
    return List.of(Map.of(ZONE_KEY, zone));
  }
}
