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
import java.util.concurrent.atomic.AtomicInteger;

/** Snapshots in memory, keyed by name: the same name from another source volume is AlreadyExists. No paging. */
public final class FakeSnapshotManager implements SnapshotManager {

  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");

  private final Map<String, Snapshot> byName = new ConcurrentHashMap<>();
  private volatile CallGate gate = CallGate.opened();
  private final AtomicInteger pendingReads = new AtomicInteger();
  private final AtomicInteger createCalls = new AtomicInteger();

  @Override
  public Snapshot createSnapshot(SnapshotRequest request) {
    gate.pass();
    createCalls.incrementAndGet();
    Snapshot s = byName.computeIfAbsent(request.name(), n ->
        new Snapshot("snap-" + n, request.sourceVolumeId(), FakeVolumeProvisioner.DEFAULT_CAPACITY_BYTES, CREATED,
            true));
    if (!s.sourceVolumeId().equals(request.sourceVolumeId())) {
      throw DriverException.alreadyExists("snapshot " + request.name() + " was taken of " + s.sourceVolumeId());
    }
    boolean pending = pendingReads.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    return pending ? new Snapshot(s.snapshotId(), s.sourceVolumeId(), s.sizeBytes(), s.createdAt(), false) : s;
  }

  /** The next {@code reads} CreateSnapshot answers say "not ready to use", as EC2's pending state does. */
  public FakeSnapshotManager pendingFor(int reads) {
    pendingReads.set(reads);
    return this;
  }

  /** CreateSnapshot calls that reached this manager. */
  public int createCalls() {
    return createCalls.get();
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
