package io.awscsi.core.provider;

import java.util.List;

/** A volume with the nodes it is published to (ListVolumes, ControllerGetVolume). */
public record PublishedVolume(Volume volume, List<String> publishedNodeIds) {

  public PublishedVolume {
    publishedNodeIds = List.copyOf(publishedNodeIds);
  }
}
