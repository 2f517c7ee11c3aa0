package io.awscsi.core.provider;

import java.nio.file.Path;
import java.util.Map;

/** NodeStageVolume with a validated, absolute, clean staging path. */
public record StageRequest(String volumeId, Map<String, String> publishContext, Path stagingPath,
    VolumeCapability capability, Map<String, String> volumeContext, Map<String, String> secrets) {

  public StageRequest {
    publishContext = Map.copyOf(publishContext);
    volumeContext = Map.copyOf(volumeContext);
    secrets = Map.copyOf(secrets);
  }

  /** Secret values never reach a log line or an exception message through this record. */
  @Override
  public String toString() {
    return "StageRequest[volumeId=" + volumeId
        + ", publishContext=" + publishContext
        + ", stagingPath=" + stagingPath
        + ", capability=" + capability
        + ", volumeContext=" + volumeContext
        + ", secrets=" + Secrets.mask(secrets) + "]";
  }
}
