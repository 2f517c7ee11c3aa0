package io.awscsi.core.provider;

import java.util.Map;

/** A validated CreateSnapshot request. */
public record SnapshotRequest(String sourceVolumeId, String name, Map<String, String> parameters,
    Map<String, String> secrets) {

  public SnapshotRequest {
    parameters = Map.copyOf(parameters);
    secrets = Map.copyOf(secrets);
  }
}
