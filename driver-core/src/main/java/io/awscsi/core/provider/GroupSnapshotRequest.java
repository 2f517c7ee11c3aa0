package io.awscsi.core.provider;

import java.util.List;
import java.util.Map;

/** A validated CreateVolumeGroupSnapshot request: the members in the order the CO listed them, without repeats. */
public record GroupSnapshotRequest(String name, List<String> sourceVolumeIds, Map<String, String> parameters,
    Map<String, String> secrets) {

  public GroupSnapshotRequest {
    sourceVolumeIds = List.copyOf(sourceVolumeIds);
    parameters = Map.copyOf(parameters);
    secrets = Map.copyOf(secrets);
  }

  /** Secret values never reach a log line or an exception message through this record. */
  @Override
  public String toString() {
    return "GroupSnapshotRequest[name=" + name + ", sourceVolumeIds=" + sourceVolumeIds + ", parameters="
        + parameters + ", secrets=" + Secrets.mask(secrets) + "]";
  }
}
