package io.awscsi.core.provider;

import java.time.Instant;
import java.util.List;

/**
 * A volume group snapshot as the CO sees it: its members each restore as an ordinary snapshot. {@code readyToUse} is
 * true only when every member is (the spec's rule).
 */
public record GroupSnapshot(String groupSnapshotId, List<Snapshot> snapshots, Instant createdAt) {

  public GroupSnapshot {
    snapshots = List.copyOf(snapshots);
  }

  public boolean readyToUse() {
    return !snapshots.isEmpty() && snapshots.stream().allMatch(Snapshot::readyToUse);
  }
}
