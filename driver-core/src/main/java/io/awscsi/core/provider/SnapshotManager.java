package io.awscsi.core.provider;

import java.util.Map;

/** CREATE_DELETE_SNAPSHOT and LIST_SNAPSHOTS. */
public interface SnapshotManager {

  /** Creates or returns the snapshot already made under this name for this source; another source is AlreadyExists. */
  Snapshot createSnapshot(SnapshotRequest request);

  /** Deletes; already gone is success. */
  void deleteSnapshot(String snapshotId, Map<String, String> secrets);

  /** An unknown snapshot id gives an empty page, not an error; an invalid token is Aborted. */
  Page<Snapshot> listSnapshots(SnapshotQuery query);
}
