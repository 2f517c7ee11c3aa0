package io.awscsi.core.provider;

import java.util.Map;

/** ControllerExpandVolume; {@code capability} is null when the CO did not send one. */
public record ExpandRequest(String volumeId, CapacityRange capacity, VolumeCapability capability,
    Map<String, String> secrets) {

  public ExpandRequest {
    secrets = Map.copyOf(secrets);
  }

  /** Secret values never reach a log line or an exception message through this record. */
  @Override
  public String toString() {
    return "ExpandRequest[volumeId=" + volumeId
        + ", capacity=" + capacity
        + ", capability=" + capability
        + ", secrets=" + Secrets.mask(secrets) + "]";
  }
}
