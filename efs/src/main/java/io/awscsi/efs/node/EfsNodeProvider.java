package io.awscsi.efs.node;

import io.awscsi.aws.metadata.NodeTopology;
import io.awscsi.core.host.CommandRunner;
import io.awscsi.core.host.FsStats;
import io.awscsi.core.host.Mounter;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.IdSyntax;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.provider.NodeProvider;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.provider.VolumePublisher;
import io.awscsi.core.provider.VolumeStatsReader;
import io.awscsi.efs.efsutils.EfsUtilsNode;
import io.awscsi.efs.mount.EfsMountBackend;
import io.awscsi.efs.mount.EfsMountRequest;
import io.awscsi.efs.mount.MountMatch;
import io.awscsi.efs.volume.EfsIds;
import io.awscsi.efs.volume.VolumeHandle;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * The EFS node: publish/unpublish (no staging, no expansion) and, when opted in, volume stats. NodeGetInfo answers
 * what the launcher read from instance metadata (instance id, zone).
 */
public final class EfsNodeProvider implements NodeProvider, AutoCloseable {

  private final NodeInfo nodeInfo;
  private final EfsVolumePublisher publisher;
  private final VolumeStatsCache stats;
  private final EfsMountBackend backend;
  private final EfsUtilsNode efsUtils;

  private EfsNodeProvider(NodeInfo nodeInfo, EfsVolumePublisher publisher, VolumeStatsCache stats,
      EfsMountBackend backend, EfsUtilsNode efsUtils) {
    this.nodeInfo = nodeInfo;
    this.publisher = publisher;
    this.stats = stats;
    this.backend = backend;
    this.efsUtils = efsUtils;
  }

  /** Builds the node over a prepared mount backend. */
  public static EfsNodeProvider create(EfsNodeOptions options, NodeInfo nodeInfo, Mounter mounter,
      CommandRunner runner, EfsMountBackend backend) {
    return create(options, nodeInfo, mounter, runner, backend, new MetricsRegistry());
  }

  /**
   * Builds the node over a prepared mount backend; with {@link EfsNodeOptions#efsUtils()} efs-utils is set up and its
   * watchdog started before the node serves a call.
   */
  public static EfsNodeProvider create(EfsNodeOptions options, NodeInfo nodeInfo, Mounter mounter,
      CommandRunner runner, EfsMountBackend backend, MetricsRegistry metrics) {
    EfsUtilsNode efsUtils = options.efsUtils().map(o -> EfsUtilsNode.start(o, metrics)).orElse(null);
    // Stats walk a volume's tree: never "/", a kernel file system or another volume. An NFS mount through a TLS
    // tunnel whose state is not readable cannot be told apart from this volume's and is measured.
    VolumeStatsCache.VolumeMounts volumeMounts = (volumeId, mount) -> {
      VolumeHandle handle = VolumeHandle.parse(volumeId);
      return backend.madeHere(mount) && !(backend.match(new EfsMountRequest(handle.fileSystemId(), handle.path(),
          handle.accessPointId(), List.of(), mount.readOnly()), mount) instanceof MountMatch.Different);
    };
    VolumeStatsCache stats = options.volMetricsOptIn()
        ? new VolumeStatsCache(mounter, volumeMounts, new FsStats(runner), options.volMetricsRefreshPeriod(),
            options.volMetricsFsRateLimit(), Clock.systemUTC())
        : null;
    EfsVolumePublisher publisher = new EfsVolumePublisher(backend, mounter, options.maxInflightMountCalls(),
        nodeInfo.accessibleTopology().getOrDefault(NodeTopology.WELL_KNOWN_ZONE_KEY, ""),
        options.forceUnmountAfterTimeout() ? options.unmountTimeout() : null,
        stats == null ? target -> { } : stats::forget);
    return new EfsNodeProvider(nodeInfo, publisher, stats, backend, efsUtils);
  }

  @Override
  public NodeInfo nodeInfo() {
    return nodeInfo;
  }

  @Override
  public VolumePublisher publisher() {
    return publisher;
  }

  @Override
  public Optional<VolumeStatsReader> stats() {
    return Optional.ofNullable(stats);
  }

  @Override
  public IdSyntax ids() {
    return EfsIds.SYNTAX;
  }

  /**
   * Not ready when the mount backend cannot work here (efs-utils missing, local root unusable) or the watchdog cannot
   * be started at all.
   */
  @Override
  public Readiness readiness() {
    String reason = backend.unavailableReason();
    if (reason.isEmpty() && efsUtils != null) {
      reason = efsUtils.unavailableReason();
    }
    return reason.isEmpty() ? Readiness.ready() : new Readiness.NotReady(reason);
  }

  /** The efs-utils side of the node, when this node manages it. */
  public Optional<EfsUtilsNode> efsUtils() {
    return Optional.ofNullable(efsUtils);
  }

  /** Stops the stats walks and the watchdog. */
  @Override
  public void close() {
    if (stats != null) {
      stats.close();
    }
    if (efsUtils != null) {
      efsUtils.close();
    }
  }
}
