package io.awscsi.core.testing;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CapabilityCheck;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeProvisioner;
import io.awscsi.core.provider.VolumeRequest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * Volumes in memory, keyed by request name, with the spec's idempotency: the same name with the same capacity
 * returns the same volume, another capacity is AlreadyExists. Every call is recorded.
 */
public final class FakeVolumeProvisioner implements VolumeProvisioner {

  public static final long DEFAULT_CAPACITY_BYTES = 1L << 30;

  private final Map<String, Volume> volumesByName = new ConcurrentHashMap<>();
  private final List<VolumeRequest> createRequests = new CopyOnWriteArrayList<>();
  private final List<String> deletedVolumeIds = new CopyOnWriteArrayList<>();
  private volatile CallGate gate = CallGate.opened();
  private volatile Supplier<RuntimeException> failure;
  private volatile boolean cloning;
  private volatile boolean snapshotSource;

  @Override
  public Volume createVolume(VolumeRequest request) {
    createRequests.add(request);
    gate.pass();
    failIfAsked();
    long capacity = request.capacity().requiredBytes() > 0 ? request.capacity().requiredBytes()
        : DEFAULT_CAPACITY_BYTES;
    Volume volume = volumesByName.computeIfAbsent(request.name(), name ->
        new Volume("vol-" + name, capacity, Map.of("fake/name", name), List.of(), request.source()));
    if (volume.capacityBytes() != capacity) {
      throw DriverException.alreadyExists("volume " + volume.volumeId() + " was created for " + request.name()
          + " with " + volume.capacityBytes() + " bytes, not " + capacity);
    }
    return volume;
  }

  @Override
  public void deleteVolume(String volumeId, Map<String, String> secrets) {
    deletedVolumeIds.add(volumeId);
    gate.pass();
    failIfAsked();
    volumesByName.values().removeIf(v -> v.volumeId().equals(volumeId));
  }

  @Override
  public CapabilityCheck validateCapabilities(String volumeId, List<VolumeCapability> capabilities,
      Map<String, String> volumeContext, Map<String, String> parameters) {
    failIfAsked();
    if (volumesByName.values().stream().noneMatch(v -> v.volumeId().equals(volumeId))) {
      throw DriverException.notFound("volume " + volumeId + " does not exist");
    }
    return capabilities.stream().anyMatch(c -> c.accessMode().multiNode())
        ? new CapabilityCheck.Unsupported("multi-node access is not supported by the fake")
        : new CapabilityCheck.Confirmed();
  }

  @Override
  public boolean supportsCloning() {
    return cloning;
  }

  @Override
  public boolean supportsSnapshotSource() {
    return snapshotSource;
  }

  public FakeVolumeProvisioner withCloning() {
    this.cloning = true;
    return this;
  }

  public FakeVolumeProvisioner withSnapshotSource() {
    this.snapshotSource = true;
    return this;
  }

  /** Holds createVolume and deleteVolume at {@code gate} until it opens. */
  public FakeVolumeProvisioner holdAt(CallGate gate) {
    this.gate = gate;
    return this;
  }

  /** Every following call throws what {@code failure} supplies (null: succeed again). */
  public FakeVolumeProvisioner failWith(Supplier<RuntimeException> failure) {
    this.failure = failure;
    return this;
  }

  public List<VolumeRequest> createRequests() {
    return List.copyOf(createRequests);
  }

  public List<String> deletedVolumeIds() {
    return List.copyOf(deletedVolumeIds);
  }

  private void failIfAsked() {
    Supplier<RuntimeException> f = failure;
    if (f != null) {
      throw f.get();
    }
  }
}
