package io.awscsi.efs.node;

import io.awscsi.efs.efsutils.EfsUtilsNode;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Node settings from the driver's flags.
 *
 * @param volMetricsOptIn {@code --vol-metrics-opt-in}: offer NodeGetVolumeStats (GET_VOLUME_STATS)
 * @param volMetricsRefreshPeriod {@code --vol-metrics-refresh-period}: how long a measured usage is answered
 * @param volMetricsFsRateLimit {@code --vol-metrics-fs-rate-limit}: concurrent usage walks per file system
 * @param forceUnmountAfterTimeout {@code --force-unmount-after-timeout}: force an unmount that hangs
 * @param unmountTimeout {@code --unmount-timeout}: how long before the unmount is forced
 * @param maxInflightMountCalls {@code --max-inflight-mount-calls}: concurrent mounts, 0 or less for no limit
 * @param efsUtils efs-utils' directories, configuration and watchdog, which the node prepares, writes and keeps
 *     running; empty where something else manages efs-utils (tests of the mount commands) or another mount backend
 *     is given
 */
public record EfsNodeOptions(
    boolean volMetricsOptIn,
    Duration volMetricsRefreshPeriod,
    int volMetricsFsRateLimit,
    boolean forceUnmountAfterTimeout,
    Duration unmountTimeout,
    int maxInflightMountCalls,
    Optional<EfsUtilsNode.Options> efsUtils) {

  /** Without efs-utils management. */
  public EfsNodeOptions(boolean volMetricsOptIn, Duration volMetricsRefreshPeriod, int volMetricsFsRateLimit,
      boolean forceUnmountAfterTimeout, Duration unmountTimeout, int maxInflightMountCalls) {
    this(volMetricsOptIn, volMetricsRefreshPeriod, volMetricsFsRateLimit, forceUnmountAfterTimeout, unmountTimeout,
        maxInflightMountCalls, Optional.empty());
  }

  public EfsNodeOptions {
    Objects.requireNonNull(volMetricsRefreshPeriod, "volMetricsRefreshPeriod");
    Objects.requireNonNull(unmountTimeout, "unmountTimeout");
    Objects.requireNonNull(efsUtils, "efsUtils");
    if (volMetricsFsRateLimit < 1) {
      throw new IllegalArgumentException("--vol-metrics-fs-rate-limit must be at least 1, was "
          + volMetricsFsRateLimit);
    }
    if (unmountTimeout.isNegative() || unmountTimeout.isZero()) {
      throw new IllegalArgumentException("--unmount-timeout must be positive, was " + unmountTimeout);
    }
  }
}
