package io.awscsi.efs.node;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.FileSystemUsage;
import io.awscsi.core.host.FsStats;
import io.awscsi.core.host.MountInfo;
import io.awscsi.core.host.MountState;
import io.awscsi.core.host.Mounter;
import io.awscsi.core.provider.VolumeStats;
import io.awscsi.core.provider.VolumeStatsReader;
import io.awscsi.efs.fs.EntryStatus;
import io.awscsi.efs.fs.OpenDirectory;
import io.awscsi.efs.volume.VolumeHandle;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * NodeGetVolumeStats with {@code --vol-metrics-opt-in}: the used bytes and inodes of a volume come from walking its
 * tree, which on a large NFS volume takes minutes, so the walk runs in the background and the answer is the last
 * result. The first call for a volume answers UNKNOWN and starts a walk; a result older than
 * {@code --vol-metrics-refresh-period} is still answered while a new walk runs. At most
 * {@code --vol-metrics-fs-rate-limit} walks run at once per file system, as upstream limits them.
 */
public final class VolumeStatsCache implements VolumeStatsReader, AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(VolumeStatsCache.class);

  private record Sample(VolumeStats.FileSystem stats, Instant computedAt) {}

  /** Whether the mount at a path is the volume's (the mount backend's match of source and type). */
  @FunctionalInterface
  public interface VolumeMounts {
    boolean isVolumeMount(String volumeId, MountInfo mount);
  }

  private final Mounter mounter;
  private final VolumeMounts volumeMounts;
  private final FsStats fsStats;
  private final Duration refreshPeriod;
  private final int perFileSystemLimit;
  private final Clock clock;
  private final ExecutorService walkers = Executors.newVirtualThreadPerTaskExecutor();
  private final Map<Path, Sample> samples = new ConcurrentHashMap<>();
  private final Set<Path> walking = ConcurrentHashMap.newKeySet();
  private final Map<String, Semaphore> fileSystemPermits = new ConcurrentHashMap<>();

  public VolumeStatsCache(Mounter mounter, VolumeMounts volumeMounts, FsStats fsStats, Duration refreshPeriod,
      int perFileSystemLimit, Clock clock) {
    if (perFileSystemLimit < 1) {
      throw new IllegalArgumentException("--vol-metrics-fs-rate-limit must be at least 1, was " + perFileSystemLimit);
    }
    this.mounter = mounter;
    this.volumeMounts = volumeMounts;
    this.fsStats = fsStats;
    this.refreshPeriod = refreshPeriod;
    this.perFileSystemLimit = perFileSystemLimit;
    this.clock = clock;
  }

  @Override
  public VolumeStats stats(String volumeId, Path volumePath) {
    switch (mounter.inspect(volumePath)) {
      case MountState.Mounted mounted -> {
        // Never walk what is not the volume ("/", another volume, a kernel file system).
        if (!volumeMounts.isVolumeMount(volumeId, mounted.mount())) {
          throw DriverException.notFound("volume " + volumeId + " is not published at volume_path " + volumePath
              + ": it holds " + mounted.mount().source() + " (" + mounted.mount().fsType() + ")");
        }
      }
      case MountState.Corrupted corrupted -> throw DriverException.failedPrecondition("volume " + volumeId
          + " at " + volumePath + " is not usable: " + corrupted.reason());
      default -> throw DriverException.notFound("volume " + volumeId + " is not published at volume_path "
          + volumePath);
    }
    Sample sample = samples.get(volumePath);
    if (sample == null || !sample.computedAt().plus(refreshPeriod).isAfter(clock.instant())) {
      startWalk(volumeId, volumePath);
    }
    return sample == null ? new VolumeStats.Unknown() : sample.stats();
  }

  /** Forgets an unpublished path, so a later publish there starts fresh. */
  public void forget(Path volumePath) {
    samples.remove(volumePath);
  }

  private void startWalk(String volumeId, Path volumePath) {
    if (!walking.add(volumePath)) {
      return;
    }
    String fileSystemId = fileSystemOf(volumeId);
    Semaphore permits = fileSystemPermits.computeIfAbsent(fileSystemId, id -> new Semaphore(perFileSystemLimit));
    walkers.execute(() -> {
      try {
        permits.acquire();
        try {
          samples.put(volumePath, new Sample(measure(volumePath), clock.instant()));
        } finally {
          permits.release();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException | IOException e) {
        LOG.warn("NodeGetVolumeStats: measuring {} at {} failed: {}", volumeId, volumePath, e.getMessage());
      } finally {
        walking.remove(volumePath);
      }
    });
  }

  /**
   * Capacity and free space from statfs; used bytes and inodes from the volume's own tree, walked through open
   * directory descriptors ({@link OpenDirectory#visit}): a directory a tenant swaps for a link during the walk is
   * counted as the link, never followed out of the volume, and no other file system mounted inside is counted.
   */
  private VolumeStats.FileSystem measure(Path volumePath) throws IOException {
    FileSystemUsage usage = fsStats.usage(volumePath);
    long[] used = {0, 1}; // the volume's root directory is one inode
    try (OpenDirectory root = OpenDirectory.openTrusted(volumePath)) {
      root.visit(entry -> {
        used[0] += entry.kind() == EntryStatus.Kind.REGULAR_FILE ? entry.size() : 0;
        used[1]++;
      });
    }
    return new VolumeStats.FileSystem(usage.totalBytes(), used[0], usage.availableBytes(), usage.totalInodes(),
        used[1], usage.freeInodes());
  }

  private static String fileSystemOf(String volumeId) {
    try {
      return VolumeHandle.parse(volumeId).fileSystemId();
    } catch (DriverException e) {
      return volumeId;
    }
  }

  @Override
  public void close() {
    walkers.shutdownNow();
  }
}
