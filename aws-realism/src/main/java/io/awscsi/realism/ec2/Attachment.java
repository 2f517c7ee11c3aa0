package io.awscsi.realism.ec2;

import java.time.Instant;

/**
 * One attachment of a volume to an instance as the proxy shows it. moto completes attach and detach at once; this
 * timeline keeps them {@code attaching} until {@code attachedAt} and {@code detaching} from {@code detachStartedAt}
 * until {@code detachedAt}.
 *
 * @param attachTime the attach time as moto wrote it, shown again while detaching
 * @param attachedAt {@link Instant#MAX} while a test holds the attachment in {@code attaching}
 * @param detachStartedAt null until DetachVolume
 * @param detachedAt null until DetachVolume
 * @param ebsCardIndex the EBS card AttachVolume named ({@code EbsCardIndex}, moto ignores it), null when none
 */
public record Attachment(String volumeId, String instanceId, String device, String attachTime,
                         boolean deleteOnTermination, Instant attachedAt, Instant detachStartedAt,
                         Instant detachedAt, Integer ebsCardIndex) {

  public static Attachment attaching(String volumeId, String instanceId, String device, String attachTime,
                                     Instant attachedAt) {
    return attaching(volumeId, instanceId, device, attachTime, attachedAt, null);
  }

  public static Attachment attaching(String volumeId, String instanceId, String device, String attachTime,
                                     Instant attachedAt, Integer ebsCardIndex) {
    return new Attachment(volumeId, instanceId, device, attachTime, false, attachedAt, null, null, ebsCardIndex);
  }

  public AttachmentState state(Instant now) {
    if (detachStartedAt != null) {
      return now.isBefore(detachedAt) ? AttachmentState.DETACHING : AttachmentState.DETACHED;
    }
    return now.isBefore(attachedAt) ? AttachmentState.ATTACHING : AttachmentState.ATTACHED;
  }

  public Attachment detaching(Instant now, Instant until) {
    return new Attachment(volumeId, instanceId, device, attachTime, deleteOnTermination, attachedAt, now, until,
        ebsCardIndex);
  }

  /** Completes an attachment a test held in {@code attaching}. */
  public Attachment released(Instant now) {
    return attachedAt.isAfter(now) ? new Attachment(volumeId, instanceId, device, attachTime, deleteOnTermination,
        now, detachStartedAt, detachedAt, ebsCardIndex) : this;
  }

  public Attachment held() {
    return new Attachment(volumeId, instanceId, device, attachTime, deleteOnTermination, Instant.MAX,
        detachStartedAt, detachedAt, ebsCardIndex);
  }
}
