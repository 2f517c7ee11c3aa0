package io.awscsi.ebs.controller;

import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.errors.DriverException;
import io.awscsi.ebs.cloud.EbsCloud;
import io.awscsi.ebs.cloud.VolumeInitialization;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * {@code blockAttachUntilInitialized}: ControllerPublishVolume of a volume restored from a snapshot answers only once
 * EC2's DescribeVolumeStatus reports the volume initialized, as upstream. A restore takes minutes to hours, so EC2 is
 * asked at once the first time, then at most once a {@link #SLOW_CHECK_INTERVAL}, or not before the end EC2 estimates
 * when it gives one (EC2 updates the information only every few minutes; upstream polls the same way). A publish
 * that cannot see the end within its deadline fails UNAVAILABLE naming the progress, with the volume left attached:
 * the external-attacher's retry finds the attachment and only asks again here.
 */
final class VolumeInitializationGate {

  private static final Logger LOG = LogManager.getLogger(VolumeInitializationGate.class);

  /** The least time between two DescribeVolumeStatus calls for one initializing volume. */
  static final Duration SLOW_CHECK_INTERVAL = Duration.ofSeconds(60);
  /** Volumes not asked about for this long are forgotten (upstream keeps them 6 h). */
  static final Duration FORGET_AFTER = Duration.ofHours(6);

  private final EbsCloud ec2;
  private final InstantSource clock;
  private final Map<String, Known> volumes = new ConcurrentHashMap<>();

  /** The latest answer of EC2 for a volume, when it was asked, and when it may be asked again. */
  private record Known(VolumeInitialization initialization, Instant askedAt, Instant nextCheck) {}

  VolumeInitializationGate(EbsCloud ec2, InstantSource clock) {
    this.ec2 = ec2;
    this.clock = clock;
  }

  /**
   * Returns once EC2 reports the volume initialized; waits for the next check only when it falls before the
   * deadline, else fails UNAVAILABLE with the progress so the attacher retries later.
   */
  void awaitInitialized(String volumeId, String nodeId, CallDeadline deadline) {
    forgetOld();
    while (true) {
      Known known = volumes.get(volumeId);
      if (known != null && !known.initialization().initializing()) {
        return;
      }
      if (known != null) {
        Duration wait = Duration.between(clock.instant(), known.nextCheck());
        if (wait.isPositive()) {
          if (wait.compareTo(deadline.remaining()) >= 0) {
            throw stillInitializing(volumeId, nodeId, known);
          }
          try {
            deadline.sleep(wait, "waiting for " + volumeId + " to initialize");
          } catch (AwsCallException e) {
            throw Ec2Failures.toDriver(e, "ControllerPublishVolume " + volumeId + " to " + nodeId);
          }
        }
      }
      VolumeInitialization now;
      try {
        now = ec2.initialization(volumeId, deadline);
      } catch (AwsCallException e) {
        throw Ec2Failures.toDriver(e, "DescribeVolumeStatus of " + volumeId + " (blockAttachUntilInitialized)");
      }
      Instant askedAt = clock.instant();
      Duration untilNext = now.timeLeft().filter(left -> left.compareTo(SLOW_CHECK_INTERVAL) > 0)
          .orElse(SLOW_CHECK_INTERVAL);
      volumes.put(volumeId, new Known(now, askedAt, askedAt.plus(untilNext)));
      if (now.initializing()) {
        LOG.info("ControllerPublishVolume: {} is attached to {} but still initializing ({}); next check in {} s",
            volumeId, nodeId, now.progress(), untilNext.toSeconds());
      }
    }
  }

  private static DriverException stillInitializing(String volumeId, String nodeId, Known known) {
    return DriverException.unavailable("volume " + volumeId + " is attached to " + nodeId + " but still initializing "
        + "from its snapshot (" + known.initialization().progress() + ", as EC2 reported it at " + known.askedAt()
        + "); blockAttachUntilInitialized holds ControllerPublishVolume until it is initialized, and it will be "
        + "retried");
  }

  private void forgetOld() {
    Instant horizon = clock.instant().minus(FORGET_AFTER);
    volumes.values().removeIf(k -> k.askedAt().isBefore(horizon));
  }
}
