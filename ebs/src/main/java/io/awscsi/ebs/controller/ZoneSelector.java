package io.awscsi.ebs.controller;

import static io.awscsi.aws.metadata.NodeTopology.EBS_ZONE_KEY;
import static io.awscsi.aws.metadata.NodeTopology.WELL_KNOWN_ZONE_KEY;
import static io.awscsi.aws.metadata.NodeTopology.ZONE_ID_KEY;

import io.awscsi.aws.metadata.NodeTopology;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.ebs.cloud.Zone;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Picks the zone of a new volume from the CO's accessibility requirements, checked against the region's zones
 * before anything is created: the first preferred zone the requisite allows, else the first requisite zone, else
 * the region's first zone (as upstream). Every zone key of a segment is read (the zone name under either key, the
 * zone id); keys of other topologies are ignored. A zone the region does not have is never chosen: requisite
 * segments naming only such zones are INVALID_ARGUMENT, preferred ones are skipped.
 */
final class ZoneSelector {


  /** What one segment says about the zone: nothing (any zone), a zone of the region, or a zone the region lacks. */
  private sealed interface Constraint {
    record Any() implements Constraint {}

    record Known(Zone zone) implements Constraint {}

    record Unknown(String description) implements Constraint {}
  }

  private ZoneSelector() {}

  /**
   * The zone for a new volume.
   *
   * @param zones the region's available zones, in EC2's order (not empty)
   * @throws DriverException InvalidArgument naming the requirement that no zone of the region satisfies
   */
  static Zone pick(TopologyRequirement topology, List<Zone> zones) {
    Optional<Set<Zone>> allowed = allowed(topology, zones);
    List<Map<String, String>> preferred = topology.preferred();
    for (int i = 0; i < preferred.size(); i++) {
      if (constraint(preferred.get(i), "accessibility_requirements.preferred[" + i + "]", zones)
          instanceof Constraint.Known(Zone zone) && allowed.map(a -> a.contains(zone)).orElse(true)) {
        return zone;
      }
    }
    return allowed.map(a -> a.iterator().next()).orElse(zones.getFirst());
  }

  /**
   * The zones the requisite allows, in its order; empty when it sets no limit (no requisite, or a segment without a
   * zone key). A requisite whose segments all name zones the region lacks is INVALID_ARGUMENT.
   */
  static Optional<Set<Zone>> allowed(TopologyRequirement topology, List<Zone> zones) {
    List<Map<String, String>> requisite = topology.requisite();
    if (requisite.isEmpty()) {
      return Optional.empty();
    }
    Set<Zone> allowed = new LinkedHashSet<>();
    List<String> unknown = new ArrayList<>();
    boolean any = false;
    for (int i = 0; i < requisite.size(); i++) {
      switch (constraint(requisite.get(i), "accessibility_requirements.requisite[" + i + "]", zones)) {
        case Constraint.Any a -> any = true;
        case Constraint.Known(Zone zone) -> allowed.add(zone);
        case Constraint.Unknown(String description) -> unknown.add(description);
      }
    }
    if (any) {
      // A segment without a zone allows every zone; the named ones still come first.
      allowed.addAll(zones);
    }
    if (allowed.isEmpty()) {
      throw DriverException.invalidArgument("accessibility_requirements.requisite", "no zone of this region "
          + "satisfies it: " + String.join(", ", unknown) + " " + (unknown.size() == 1 ? "is" : "are")
          + " not among the region's zones (" + names(zones) + ")");
    }
    return Optional.of(allowed);
  }

  /** Whether {@code zone} (an existing volume's) is allowed by the requisite. */
  static boolean allows(TopologyRequirement topology, List<Zone> zones, String zone) {
    return allowed(topology, zones).map(a -> a.stream().anyMatch(z -> z.name().equals(zone))).orElse(true);
  }

  /**
   * Whether a clone of a volume in {@code zone}, on the Outpost {@code outpostArn} ("" for the region), meets the
   * requisite, as upstream's {@code checkSourceTopology}: some requisite segment allows the zone and either names no
   * Outpost or names the source's.
   */
  static boolean allowsSource(TopologyRequirement topology, List<Zone> zones, String zone, String outpostArn) {
    if (allowed(topology, zones).isEmpty()) {
      return true;
    }
    List<Map<String, String>> requisite = topology.requisite();
    for (int i = 0; i < requisite.size(); i++) {
      String field = "accessibility_requirements.requisite[" + i + "]";
      boolean zoneFits = switch (constraint(requisite.get(i), field, zones)) {
        case Constraint.Any a -> true;
        case Constraint.Known(Zone known) -> known.name().equals(zone);
        case Constraint.Unknown u -> false;
      };
      if (zoneFits && OutpostPlacement.of(requisite.get(i), field).map(o -> o.toString().equals(outpostArn))
          .orElse(true)) {
        return true;
      }
    }
    return false;
  }

  private static Constraint constraint(Map<String, String> segment, String field, List<Zone> zones) {
    String name = value(segment, WELL_KNOWN_ZONE_KEY, field);
    String other = value(segment, EBS_ZONE_KEY, field);
    String id = value(segment, ZONE_ID_KEY, field);
    if (name != null && other != null && !name.equals(other)) {
      throw DriverException.invalidArgument(field, "names two zones: " + WELL_KNOWN_ZONE_KEY + "=" + name + " and "
          + EBS_ZONE_KEY + "=" + other);
    }
    if (name == null) {
      name = other;
    }
    if (name == null && id == null) {
      return new Constraint.Any();
    }
    String zoneName = name;
    Optional<Zone> byName = zoneName == null ? Optional.empty()
        : zones.stream().filter(z -> z.name().equals(zoneName)).findFirst();
    Optional<Zone> byId = id == null ? Optional.empty() : zones.stream().filter(z -> z.id().equals(id)).findFirst();
    if (name != null && id != null) {
      if (byName.isPresent() && byId.isPresent() && !byName.equals(byId)) {
        throw DriverException.invalidArgument(field, "names two zones: " + name + " and zone id " + id + " ("
            + byId.get().name() + ")");
      }
      return byName.or(() -> byId).<Constraint>map(Constraint.Known::new)
          .orElseGet(() -> new Constraint.Unknown("zone " + zoneName + " (zone id " + id + ")"));
    }
    if (name != null) {
      return byName.<Constraint>map(Constraint.Known::new).orElseGet(() -> new Constraint.Unknown("zone "
          + zoneName));
    }
    return byId.<Constraint>map(Constraint.Known::new).orElseGet(() -> new Constraint.Unknown("zone id " + id));
  }

  /** A zone key's value; null when absent. An empty or blank value says nothing usable: InvalidArgument. */
  private static String value(Map<String, String> segment, String key, String field) {
    String value = segment.get(key);
    if (value == null) {
      return null;
    }
    if (value.isBlank()) {
      throw DriverException.invalidArgument(field, key + " is empty");
    }
    return value;
  }

  private static String names(List<Zone> zones) {
    return zones.stream().map(Zone::name).collect(Collectors.joining(", "));
  }

  /**
   * The topology a volume in {@code zone} is accessible from; none when EC2 did not say ("" zone). A volume on an
   * Outpost ({@code outpostArn} not empty) adds the Outpost's segments, as upstream: only nodes on that Outpost
   * report them.
   */
  static List<Map<String, String>> accessibleTopology(String zone, String outpostArn) {
    if (zone == null || zone.isEmpty()) {
      return List.of();
    }
    Map<String, String> segment = new HashMap<>(Map.of(WELL_KNOWN_ZONE_KEY, zone));
    OutpostPlacement.ofVolume(outpostArn).ifPresent(o -> segment.putAll(NodeTopology.outpostSegments(o)));
    return List.of(Map.copyOf(segment));
  }
}
