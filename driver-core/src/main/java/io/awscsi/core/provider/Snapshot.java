package io.awscsi.core.provider;

import java.time.Instant;

/** A snapshot as the CO sees it; {@code groupSnapshotId} names the group it was taken in, "" when none. */
public record Snapshot(String snapshotId, String sourceVolumeId, long sizeBytes, Instant createdAt,
    boolean readyToUse, String groupSnapshotId) {

  public Snapshot {
    groupSnapshotId = groupSnapshotId == null ? "" : groupSnapshotId;
  }

  /** A snapshot taken on its own. */
  public Snapshot(String snapshotId, String sourceVolumeId, long sizeBytes, Instant createdAt, boolean readyToUse) {
    this(snapshotId, sourceVolumeId, sizeBytes, createdAt, readyToUse, "");
  }
}
