package io.awscsi.ebs.controller;

import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.errors.DriverException;
import io.awscsi.ebs.cloud.Attachment;
import io.awscsi.ebs.cloud.Disk;
import io.awscsi.ebs.cloud.EbsCloud;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Waits for an attachment to reach {@code attached} or to disappear, polling the batched DescribeVolumes with an
 * adaptive backoff bounded by the call's deadline. An attachment that stays in {@code attaching} longer than the
 * stuck threshold is detached and the call fails retryably: a fresh attach (on another device name) usually
 * succeeds where waiting longer would not.
 */
final class VolumeAttachmentWaiter {

  private static final Logger LOG = LogManager.getLogger(VolumeAttachmentWaiter.class);

  /** How long an attachment may be missing from DescribeVolumes right after AttachVolume (eventual consistency). */
  static final Duration VISIBILITY_GRACE = Duration.ofSeconds(10);

  private final EbsCloud ec2;
  private final Duration stuckAttaching;
  private final AdaptiveBackoff attachPolls = new AdaptiveBackoff(Duration.ofMillis(1000), Duration.ofMillis(200),
      Duration.ofSeconds(5), Duration.ofMillis(250), 1.15);
  private final AdaptiveBackoff detachPolls = new AdaptiveBackoff(Duration.ofMillis(1000), Duration.ofMillis(200),
      Duration.ofSeconds(5), Duration.ofMillis(250), 1.15);

  private final DetachPendingTracker detachPending;

  VolumeAttachmentWaiter(EbsCloud ec2, Duration stuckAttaching, DetachPendingTracker detachPending) {
    this.ec2 = ec2;
    this.stuckAttaching = stuckAttaching;
    this.detachPending = detachPending;
  }

  /**
   * Waits until the volume is attached to the instance; {@code since} is when EC2 accepted AttachVolume. With a
   * {@code card} (the EBS card AttachVolume named), an attachment is attached only once EC2 shows it on that card,
   * as upstream's WaitForAttachmentState.
   */
  Attachment awaitAttached(String volumeId, String instanceId, Instant since, OptionalInt card,
      CallDeadline deadline) {
    String what = "waiting for " + volumeId + " to attach to " + instanceId;
    try {
      return StatePoller.await(attachPolls, deadline, since, what, () -> {
        Disk disk = ec2.disk(volumeId, deadline).orElseThrow(() -> DriverException.notFound("volume " + volumeId
            + " disappeared while attaching to " + instanceId));
        Optional<Attachment> attachment = disk.attachmentTo(instanceId);
        if (attachment.isEmpty()) {
          if (Duration.between(since, Instant.now()).compareTo(VISIBILITY_GRACE) > 0) {
            throw DriverException.unavailable("volume " + volumeId + " is no longer attaching to " + instanceId
                + " (EC2 dropped the attachment); the attach will be retried");
          }
          return Optional.empty();
        }
        Attachment a = attachment.get();
        return switch (a.state()) {
          case ATTACHED -> {
            if (card.isPresent() && !a.ebsCard().equals(card)) {
              LOG.info("{} is attached to {} on EBS card {}, expected card {}; still waiting", volumeId, instanceId,
                  a.ebsCard().isPresent() ? a.ebsCard().getAsInt() : "(none)", card.getAsInt());
              yield Optional.empty();
            }
            yield Optional.of(a);
          }
          case ATTACHING -> {
            Instant started = a.attachedAt() != null && a.attachedAt().isAfter(since.minus(Duration.ofDays(1)))
                ? earlier(a.attachedAt(), since) : since;
            if (Duration.between(started, Instant.now()).compareTo(stuckAttaching) > 0) {
              throw stuck(volumeId, instanceId, a, deadline);
            }
            yield Optional.empty();
          }
          case DETACHING, DETACHED, BUSY -> throw DriverException.unavailable("volume " + volumeId + " is "
              + a.state().name().toLowerCase() + " from " + instanceId + " while it should be attaching; "
              + "the attach will be retried once the detach has finished");
        };
      });
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, what);
    }
  }

  /** Waits until the volume has no attachment to the instance (or is gone). */
  void awaitDetached(String volumeId, String instanceId, Instant since, CallDeadline deadline) {
    String what = "waiting for " + volumeId + " to detach from " + instanceId;
    try {
      StatePoller.await(detachPolls, deadline, since, what, () -> {
        Optional<Attachment> attachment = ec2.disk(volumeId, deadline).flatMap(d -> d.attachmentTo(instanceId));
        if (attachment.isEmpty()) {
          detachPending.forget(volumeId, instanceId);
          return Optional.of(Boolean.TRUE);
        }
        detachPending.stillAttached(volumeId, instanceId, attachment.get().state().name().toLowerCase());
        return Optional.empty();
      });
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, what);
    }
  }

  private DriverException stuck(String volumeId, String instanceId, Attachment a, CallDeadline deadline) {
    LOG.warn("Volume {} stuck attaching to {} as {} for more than {} s; detaching it so a fresh attach can succeed",
        volumeId, instanceId, a.device(), stuckAttaching.toSeconds());
    try {
      ec2.detach(volumeId, instanceId, deadline);
    } catch (AwsCallException e) {
      LOG.warn("Detaching stuck volume {} from {} failed: {}", volumeId, instanceId, e.getMessage());
    }
    return DriverException.unavailable("volume " + volumeId + " was stuck in attaching to " + instanceId + " as "
        + a.device() + " for more than " + stuckAttaching.toSeconds() + " s; it was detached and the attach will be "
        + "retried with another device name");
  }

  private static Instant earlier(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }
}
