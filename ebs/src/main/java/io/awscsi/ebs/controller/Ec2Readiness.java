package io.awscsi.ebs.controller;

import io.awscsi.core.provider.Readiness;
import io.awscsi.ebs.cloud.CallDeadline;
import io.awscsi.ebs.cloud.CloudException;
import io.awscsi.ebs.cloud.Ec2Volumes;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Probe's answer for the controller: a dry-run DescribeAvailabilityZones proves EC2 is reachable and the
 * credentials are accepted. A success is reused for a while (probes come every few seconds and must stay cheap); a
 * failure is not, so recovery shows at the next probe.
 */
final class Ec2Readiness {

  private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(5);

  private final Ec2Volumes ec2;
  private final Duration successTtl;
  private final LongSupplier nanoClock;
  private volatile long readyUntil;
  private volatile boolean everReady;

  Ec2Readiness(Ec2Volumes ec2, Duration successTtl, LongSupplier nanoClock) {
    this.ec2 = ec2;
    this.successTtl = successTtl;
    this.nanoClock = nanoClock;
  }

  Readiness check() {
    long now = nanoClock.getAsLong();
    if (everReady && readyUntil - now > 0) {
      return Readiness.ready();
    }
    try {
      ec2.checkAccess(CallDeadline.after(CHECK_TIMEOUT));
      readyUntil = nanoClock.getAsLong() + successTtl.toNanos();
      everReady = true;
      return Readiness.ready();
    } catch (CloudException e) {
      return new Readiness.NotReady("EC2 is not usable: " + e.getMessage()
          + "; check the endpoint, network and the controller's IAM role");
    }
  }
}
