package io.awscsi.core.provider;

import java.util.Map;

/** ControllerPublishVolume: make a volume available on a node (EBS: attach). */
public record PublishRequest(
    String volumeId,
    String nodeId,
    VolumeCapability capability,
    boolean readonly,
    Map<String, String> volumeContext,
    Map<String, String> secrets) {

  public PublishRequest {
    volumeContext = Map.copyOf(volumeContext);
    secrets = Map.copyOf(secrets);
  }

  /** Secret values never reach a log line or an exception message through this record. */
  @Override
  public String toString() {
    return "PublishRequest[volumeId=" + volumeId
        + ", nodeId=" + nodeId
        + ", capability=" + capability
        + ", readonly=" + readonly
        + ", volumeContext=" + volumeContext
        + ", secrets=" + Secrets.mask(secrets) + "]";
  }
}
