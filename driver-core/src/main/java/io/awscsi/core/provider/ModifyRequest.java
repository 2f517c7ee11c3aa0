package io.awscsi.core.provider;

import java.util.Map;

/** ControllerModifyVolume with the VolumeAttributesClass parameters. */
public record ModifyRequest(String volumeId, Map<String, String> mutableParameters, Map<String, String> secrets) {

  public ModifyRequest {
    mutableParameters = Map.copyOf(mutableParameters);
    secrets = Map.copyOf(secrets);
  }
}
