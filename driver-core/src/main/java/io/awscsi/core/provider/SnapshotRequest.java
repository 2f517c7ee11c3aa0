package io.awscsi.core.provider;

import java.util.Map;

/** A validated CreateSnapshot request. */
public record SnapshotRequest(String sourceVolumeId, String name, Map<String, String> parameters,
    Map<String, String> secrets) {

  public SnapshotRequest {
    parameters = Map.copyOf(parameters);
    secrets = Map.copyOf(secrets);
  }

  /** Secret values never reach a log line or an exception message through this record. */
  @Override
  public String toString() {
    return "SnapshotRequest[sourceVolumeId=" + sourceVolumeId
        + ", name=" + name
        + ", parameters=" + parameters
        + ", secrets=" + Secrets.mask(secrets) + "]";
  }
}
