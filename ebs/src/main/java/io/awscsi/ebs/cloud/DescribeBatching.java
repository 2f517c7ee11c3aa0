package io.awscsi.ebs.cloud;

import java.time.Duration;

/**
 * Whether and how long Describe lookups wait to be merged. The batch sizes are upstream's (DescribeVolumes and
 * DescribeVolumesModifications 500, DescribeInstances 50, DescribeSnapshots 1000); 500 ms is upstream's delay,
 * "tuned via scalability tests".
 */
public record DescribeBatching(boolean enabled, Duration maxDelay) {

  public static final DescribeBatching DEFAULT = new DescribeBatching(true, Duration.ofMillis(500));

  static final int VOLUMES = 500;
  static final int INSTANCES = 50;
  static final int SNAPSHOTS = 1000;
  static final int MODIFICATIONS = 500;

  int entries(int upstreamMax) {
    return enabled ? upstreamMax : 1;
  }

  Duration delay() {
    return enabled ? maxDelay : Duration.ZERO;
  }
}
