package io.awscsi.ebs.controller;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.concurrent.KeyedLocks;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.Page;
import io.awscsi.core.provider.Snapshot;
import io.awscsi.core.provider.SnapshotManager;
import io.awscsi.core.provider.SnapshotQuery;
import io.awscsi.core.provider.SnapshotRequest;
import io.awscsi.ebs.cloud.DiskSnapshot;
import io.awscsi.ebs.cloud.EbsCloud;
import io.awscsi.ebs.cloud.ListChunk;
import io.awscsi.ebs.cloud.Zone;
import io.awscsi.ebs.volume.EbsIds;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * CreateSnapshot, DeleteSnapshot and ListSnapshots. A snapshot is found again by its {@code CSIVolumeSnapshotName}
 * tag, so CreateSnapshot is idempotent by name; {@code ready_to_use} is simply "EC2 says completed", and the driver
 * does not wait for it (the snapshotter polls). Fast snapshot restore and snapshot locks are applied right after
 * creation; if either fails the snapshot is deleted and the call fails, as upstream.
 */
final class EbsSnapshotManager implements SnapshotManager {

  private static final Logger LOG = LogManager.getLogger(EbsSnapshotManager.class);

  private final EbsCloud ec2;
  private final EbsControllerOptions options;
  private final ResourceTags tags;
  private final KeyedLocks names = new KeyedLocks();

  EbsSnapshotManager(EbsCloud ec2, EbsControllerOptions options, ResourceTags tags) {
    this.ec2 = ec2;
    this.options = options;
    this.tags = tags;
  }

  @Override
  public Snapshot createSnapshot(SnapshotRequest request) {
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    SnapshotParameters parameters = SnapshotParameters.parse(request.parameters());
    String name = request.name();
    String volumeId = request.sourceVolumeId();
    try (KeyedLocks.Held held = CallDeadlines.lock(names, name, deadline, "CreateSnapshot " + name)) {
      Optional<DiskSnapshot> existing = ec2.snapshotsNamed(name, deadline).stream()
          .filter(s -> s.state() != DiskSnapshot.State.ERROR)
          .min(Comparator.comparing(s -> s.startedAt() == null ? Instant.EPOCH : s.startedAt()));
      if (existing.isPresent()) {
        DiskSnapshot s = existing.get();
        if (!s.volumeId().equals(volumeId)) {
          throw DriverException.alreadyExists("snapshot " + s.snapshotId() + " already exists under the name " + name
              + " for volume " + s.volumeId() + ", not " + volumeId + "; use another name");
        }
        LOG.info("CreateSnapshot: {} already exists as {}", name, s.snapshotId());
        return snapshot(s);
      }
      // No Describe of the source first: CreateSnapshot of a volume that does not exist is EC2's
      // InvalidVolume.NotFound, answered NOT_FOUND below.
      if (!parameters.fastRestoreZones().isEmpty()) {
        List<String> known = ec2.availabilityZones(deadline).stream().map(Zone::name).toList();
        for (String zone : parameters.fastRestoreZones()) {
          if (!known.contains(zone)) {
            throw DriverException.invalidArgument("fastSnapshotRestoreAvailabilityZones", "zone " + zone
                + " is not an available zone of this region (" + String.join(", ", known) + ")");
          }
        }
      }
      Map<String, String> snapshotTags = tags.forSnapshot(name, tags.userTags(parameters.tagSpecifications(),
          parameters.templateFields()), parameters.createdForTags());
      DiskSnapshot created;
      try {
        created = ec2.createSnapshot(volumeId, "Created by the EBS CSI driver for volume " + volumeId,
            parameters.outpostArn(), snapshotTags, deadline);
      } catch (AwsCallException e) {
        if (e.error() instanceof AwsCallError.NotFound nf) {
          throw DriverException.notFound("source volume " + volumeId + " of snapshot " + name + " does not exist: "
              + nf.message());
        }
        throw e;
      }
      LOG.info("CreateSnapshot: {} created as {} from {}", name, created.snapshotId(), volumeId);
      if (!parameters.fastRestoreZones().isEmpty()) {
        afterCreation(created, "enable fast snapshot restore in " + parameters.fastRestoreZones(), deadline,
            () -> ec2.enableFastSnapshotRestores(created.snapshotId(), parameters.fastRestoreZones(), deadline));
      }
      if (parameters.lock() != null) {
        afterCreation(created, "lock it (" + parameters.lock().mode() + ")", deadline,
            () -> ec2.lockSnapshot(created.snapshotId(), parameters.lock(), deadline));
      }
      return snapshot(created);
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, "CreateSnapshot " + name + " of " + volumeId);
    }
  }

  /** Runs a step that must succeed for the snapshot to be kept; on failure deletes the snapshot. */
  private void afterCreation(DiskSnapshot created, String step, CallDeadline deadline, Runnable action) {
    try {
      action.run();
    } catch (AwsCallException e) {
      LOG.warn("CreateSnapshot: could not {} for {}: {}; deleting the snapshot", step, created.snapshotId(),
          e.getMessage());
      try {
        ec2.deleteSnapshot(created.snapshotId(), deadline);
      } catch (AwsCallException cleanup) {
        LOG.warn("CreateSnapshot: deleting {} after the failure failed too: {}", created.snapshotId(),
            cleanup.getMessage());
      }
      throw Ec2Failures.toDriver(e, "CreateSnapshot could not " + step + " for " + created.snapshotId()
          + " (the snapshot was deleted)");
    }
  }

  @Override
  public void deleteSnapshot(String snapshotId, Map<String, String> secrets) {
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    try {
      ec2.deleteSnapshot(snapshotId, deadline);
      LOG.info("DeleteSnapshot: deleted {}", snapshotId);
    } catch (AwsCallException e) {
      if (e.error() instanceof AwsCallError.NotFound) {
        LOG.info("DeleteSnapshot: {} is already gone", snapshotId);
        return;
      }
      throw Ec2Failures.toDriver(e, "DeleteSnapshot " + snapshotId);
    }
  }

  @Override
  public Page<Snapshot> listSnapshots(SnapshotQuery query) {
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    try {
      if (!query.snapshotId().isEmpty()) {
        ListTokens.decode(query.startingToken());
        return new Page<>(ec2.snapshot(query.snapshotId(), deadline)
            .filter(s -> query.sourceVolumeId().isEmpty() || s.volumeId().equals(query.sourceVolumeId()))
            .map(EbsSnapshotManager::snapshot).stream().toList(), "");
      }
      ListTokens.Position at = ListTokens.decode(query.startingToken());
      int pageSize = ListTokens.ec2PageSize(query.maxEntries(), 5, 1000);
      ListChunk<DiskSnapshot> chunk;
      try {
        chunk = ec2.listSnapshots(query.sourceVolumeId(), pageSize, at.ec2Token(), deadline);
      } catch (AwsCallException e) {
        if (e.error() instanceof AwsCallError.InvalidRequest && !at.ec2Token().isEmpty()) {
          throw ListTokens.invalid(query.startingToken());
        }
        throw e;
      }
      return page(chunk, at, query.maxEntries(), query.startingToken()).map(EbsSnapshotManager::snapshot);
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, "ListSnapshots");
    }
  }

  static Snapshot snapshot(DiskSnapshot s) {
    return new Snapshot(s.snapshotId(), s.volumeId(), s.volumeSizeGiB() * VolumeSizes.GIB,
        s.startedAt() == null ? Instant.EPOCH : s.startedAt(), s.state() == DiskSnapshot.State.COMPLETED,
        EbsIds.isGroupSnapshotId(s.tag(EbsCloud.GROUP_SNAPSHOT_ID_TAG)) ? s.tag(EbsCloud.GROUP_SNAPSHOT_ID_TAG) : "");
  }

  /** A slice of an EC2 page and the token that continues after it. */
  record Slice<T>(List<T> entries, String nextToken) {
    <R> Page<R> map(java.util.function.Function<T, R> f) {
      return new Page<>(entries.stream().map(f).toList(), nextToken);
    }
  }

  static <T> Slice<T> page(ListChunk<T> chunk, ListTokens.Position at, int maxEntries, String token) {
    if (at.skip() > chunk.items().size()) {
      throw ListTokens.invalid(token);
    }
    int end = maxEntries <= 0 ? chunk.items().size() : Math.min(chunk.items().size(), at.skip() + maxEntries);
    List<T> entries = chunk.items().subList(at.skip(), end);
    String next;
    if (end < chunk.items().size()) {
      next = ListTokens.encode(new ListTokens.Position(at.ec2Token(), end));
    } else if (!chunk.nextToken().isEmpty()) {
      next = ListTokens.encode(new ListTokens.Position(chunk.nextToken(), 0));
    } else {
      next = "";
    }
    return new Slice<>(entries, next);
  }
}
