package io.awscsi.core.provider;

import java.util.List;

/** A volume with the nodes it is published to (ListVolumes, ControllerGetVolume). */
public record PublishedVolume(Volume volume, List<String> publishedNodeIds, String abnormalCondition) {

  public PublishedVolume {
    publishedNodeIds = List.copyOf(publishedNodeIds);
    abnormalCondition = abnormalCondition == null ? "" : abnormalCondition;
  }
}
