package io.awscsi.core.provider;

import java.util.List;
import java.util.Map;

/** A validated CreateVolume request. Parameters keep the CO's keys; providers parse them. */
public record VolumeRequest(
    String name,
    CapacityRange capacity,
    List<VolumeCapability> capabilities,
    Map<String, String> parameters,
    Map<String, String> mutableParameters,
    Map<String, String> secrets,
    VolumeSource source,
    TopologyRequirement topology) {

  public VolumeRequest {
    capabilities = List.copyOf(capabilities);
    parameters = Map.copyOf(parameters);
    mutableParameters = Map.copyOf(mutableParameters);
    secrets = Map.copyOf(secrets);
  }

  public boolean anyBlock() {
    return capabilities.stream().anyMatch(VolumeCapability::isBlock);
  }
}
