package io.awscsi.core.provider;

import java.util.Map;

/** NodeGetInfo: {@code maxVolumesPerNode} 0 means no limit. */
public record NodeInfo(String nodeId, long maxVolumesPerNode, Map<String, String> accessibleTopology) {

  public NodeInfo {
    accessibleTopology = Map.copyOf(accessibleTopology);
  }
}
