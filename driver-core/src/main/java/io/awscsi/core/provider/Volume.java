package io.awscsi.core.provider;

import java.util.List;
import java.util.Map;

/** A volume as the CO sees it (CreateVolume and ListVolumes answers). */
public record Volume(
    String volumeId,
    long capacityBytes,
    Map<String, String> volumeContext,
    List<Map<String, String>> accessibleTopology,
    VolumeSource source) {

  public Volume {
    volumeContext = Map.copyOf(volumeContext);
    accessibleTopology = accessibleTopology.stream().map(Map::copyOf).toList();
  }
}
