package io.awscsi.core.testing;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.Page;
import io.awscsi.core.provider.Snapshot;
import io.awscsi.core.provider.SnapshotManager;
import io.awscsi.core.provider.SnapshotQuery;
import io.awscsi.core.provider.SnapshotRequest;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Snapshots in memory, keyed by name: the same name from another source volume is AlreadyExists. No paging. */
public final class FakeSnapshotManager implements SnapshotManager {

  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");

  private final Map<String, Snapshot> byName = new ConcurrentHashMap<>();
  private volatile CallGate gate = CallGate.opened();

  @Override
  public Snapshot createSnapshot(SnapshotRequest request) {
    gate.pass();
    Snapshot s = byName.computeIfAbsent(request.name(), n ->
        new Snapshot("snap-" + n, request.sourceVolumeId(), FakeVolumeProvisioner.DEFAULT_CAPACITY_BYTES, CREATED,
            true));
    if (!s.sourceVolumeId().equals(request.sourceVolumeId())) {
      throw DriverException.alreadyExists("snapshot " + request.name() + " was taken of " + s.sourceVolumeId());
    }
    return s;
  }

  @Override
  public void deleteSnapshot(String snapshotId, Map<String, String> secrets) {
    gate.pass();
    byName.values().removeIf(s -> s.snapshotId().equals(snapshotId));
  }

  @Override
  public Page<Snapshot> listSnapshots(SnapshotQuery query) {
    if (!query.startingToken().isEmpty()) {
      throw DriverException.aborted("starting_token " + query.startingToken() + " was not issued by this driver");
    }
    List<Snapshot> matching = byName.values().stream()
        .filter(s -> query.snapshotId().isEmpty() || s.snapshotId().equals(query.snapshotId()))
        .filter(s -> query.sourceVolumeId().isEmpty() || s.sourceVolumeId().equals(query.sourceVolumeId()))
        .toList();
    return new Page<>(matching, "");
  }

  public FakeSnapshotManager holdAt(CallGate gate) {
    this.gate = gate;
    return this;
  }
}
