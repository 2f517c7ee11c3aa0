package io.awscsi.core.provider;

import java.nio.file.Path;
import java.util.Map;

/** NodePublishVolume; {@code stagingPath} is null for drivers without staging. Paths are absolute and clean. */
public record NodePublishRequest(String volumeId, Map<String, String> publishContext, Path stagingPath,
    Path targetPath, VolumeCapability capability, boolean readonly, Map<String, String> volumeContext,
    Map<String, String> secrets) {

  public NodePublishRequest {
    publishContext = Map.copyOf(publishContext);
    volumeContext = Map.copyOf(volumeContext);
    secrets = Map.copyOf(secrets);
  }

  /** Secret values never reach a log line or an exception message through this record. */
  @Override
  public String toString() {
    return "NodePublishRequest[volumeId=" + volumeId
        + ", publishContext=" + publishContext
        + ", stagingPath=" + stagingPath
        + ", targetPath=" + targetPath
        + ", capability=" + capability
        + ", readonly=" + readonly
        + ", volumeContext=" + volumeContext
        + ", secrets=" + Secrets.mask(secrets) + "]";
  }
}
