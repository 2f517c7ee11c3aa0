package io.awscsi.core.provider;

import java.util.Map;

/** ControllerModifyVolume with the VolumeAttributesClass parameters. */
public record ModifyRequest(String volumeId, Map<String, String> mutableParameters, Map<String, String> secrets) {

  public ModifyRequest {
    mutableParameters = Map.copyOf(mutableParameters);
    secrets = Map.copyOf(secrets);
  }

  /** Secret values never reach a log line or an exception message through this record. */
  @Override
  public String toString() {
    return "ModifyRequest[volumeId=" + volumeId
        + ", mutableParameters=" + mutableParameters
        + ", secrets=" + Secrets.mask(secrets) + "]";
  }
}
