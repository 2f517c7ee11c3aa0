package io.awscsi.efs.node;

import io.awscsi.core.host.CommandRunner;
import io.awscsi.core.host.FsStats;
import io.awscsi.core.host.Mounter;
import io.awscsi.core.provider.IdSyntax;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.provider.NodeProvider;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.provider.VolumePublisher;
import io.awscsi.core.provider.VolumeStatsReader;
import io.awscsi.efs.cloud.EfsCloud;
import io.awscsi.efs.mount.EfsMountBackend;
import io.awscsi.efs.mount.EfsMountRequest;
import io.awscsi.efs.mount.MountMatch;
import io.awscsi.efs.volume.VolumeHandle;
import io.awscsi.efs.volume.EfsIds;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The EFS node: publish/unpublish (no staging, no expansion) and, when opted in, volume stats. NodeGetInfo answers
 * what the launcher read from instance metadata (instance id, zone).
 */
public final class EfsNodeProvider implements NodeProvider, AutoCloseable {

  static final String ZONE_TOPOLOGY_KEY = "topology.kubernetes.io/zone";

  private final NodeInfo nodeInfo;
  private final EfsVolumePublisher publisher;
  private final VolumeStatsCache stats;
  private final EfsMountBackend backend;

  private EfsNodeProvider(NodeInfo nodeInfo, EfsVolumePublisher publisher, VolumeStatsCache stats,
      EfsMountBackend backend) {
    this.nodeInfo = nodeInfo;
    this.publisher = publisher;
    this.stats = stats;
    this.backend = backend;
  }

  /**
   * Builds the node.
   *
   * @param nodeInfo instance id and {@code topology.kubernetes.io/zone} from instance metadata
   * @param localBackendCloud the EFS API for the LOCAL backend, which reads access point roots that efs-utils would
   *     leave to EFS ({@code SdkEfsCloud.create}); never called with EFS_UTILS
   */
  public static EfsNodeProvider create(EfsNodeOptions options, NodeInfo nodeInfo, Mounter mounter,
      CommandRunner runner, Supplier<EfsCloud> localBackendCloud) {
    EfsMountBackend backend = options.mountBackend().create(mounter, options.localRoot(),
        () -> localBackendCloud.get()::describeAccessPoint);
    return create(options, nodeInfo, mounter, runner, backend);
  }

  /** Builds the node over a prepared mount backend. */
  public static EfsNodeProvider create(EfsNodeOptions options, NodeInfo nodeInfo, Mounter mounter,
      CommandRunner runner, EfsMountBackend backend) {
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
        nodeInfo.accessibleTopology().getOrDefault(ZONE_TOPOLOGY_KEY, ""),
        options.forceUnmountAfterTimeout() ? options.unmountTimeout() : null,
        stats == null ? target -> { } : stats::forget);
    return new EfsNodeProvider(nodeInfo, publisher, stats, backend);
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

  /** Not ready when the mount backend cannot work here (efs-utils missing, local root unusable). */
  @Override
  public IdSyntax ids() {
    return EfsIds.SYNTAX;
  }

  @Override
  public Readiness readiness() {
    String reason = backend.unavailableReason();
    return reason.isEmpty() ? Readiness.ready() : new Readiness.NotReady(reason);
  }

  @Override
  public void close() {
    if (stats != null) {
      stats.close();
    }
  }
}
