package io.awscsi.core.provider;

import java.util.List;
import java.util.Map;

/** Where a new volume must (requisite) and should (preferred, in order) be accessible from. */
public record TopologyRequirement(List<Map<String, String>> requisite, List<Map<String, String>> preferred) {

  public static final TopologyRequirement NONE = new TopologyRequirement(List.of(), List.of());

  public TopologyRequirement {
    requisite = requisite.stream().map(Map::copyOf).toList();
    preferred = preferred.stream().map(Map::copyOf).toList();
  }
}
