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

  /** Secret values never reach a log line or an exception message through this record. */
  @Override
  public String toString() {
    return "VolumeRequest[name=" + name
        + ", capacity=" + capacity
        + ", capabilities=" + capabilities
        + ", parameters=" + parameters
        + ", mutableParameters=" + mutableParameters
        + ", secrets=" + Secrets.mask(secrets)
        + ", source=" + source
        + ", topology=" + topology + "]";
  }
}
