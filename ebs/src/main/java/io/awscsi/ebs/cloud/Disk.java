package io.awscsi.ebs.cloud;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An EBS volume as EC2 last described it. {@code iops} and {@code throughput} are 0 when EC2 reports none;
 * {@code snapshotId}, {@code kmsKeyId} and {@code outpostArn} (a volume in the region) are empty strings when not set.
 */
public record Disk(
    String volumeId,
    int sizeGiB,
    String zone,
    String zoneId,
    String outpostArn,
    String volumeType,
    int iops,
    int throughput,
    boolean encrypted,
    String kmsKeyId,
    boolean multiAttach,
    String snapshotId,
    State state,
    Instant createdAt,
    List<Attachment> attachments,
    Map<String, String> tags) {

  /** EC2's volume states. */
  public enum State {
    CREATING, AVAILABLE, IN_USE, DELETING, DELETED, ERROR;

    static State of(String ec2) {
      return switch (ec2 == null ? "" : ec2) {
        case "creating" -> CREATING;
        case "available" -> AVAILABLE;
        case "in-use" -> IN_USE;
        case "deleting" -> DELETING;
        case "deleted" -> DELETED;
        default -> ERROR;
      };
    }
  }

  public Disk {
    zone = zone == null ? "" : zone;
    volumeType = volumeType == null ? "" : volumeType;
    zoneId = zoneId == null ? "" : zoneId;
    outpostArn = outpostArn == null ? "" : outpostArn;
    kmsKeyId = kmsKeyId == null ? "" : kmsKeyId;
    snapshotId = snapshotId == null ? "" : snapshotId;
    attachments = attachments == null ? List.of() : List.copyOf(attachments);
    tags = tags == null ? Map.of() : Map.copyOf(tags);
  }

  public long sizeBytes() {
    return sizeGiB * (1L << 30);
  }

  /** The attachment to {@code instanceId} in any state other than detached. */
  public Optional<Attachment> attachmentTo(String instanceId) {
    return attachments.stream()
        .filter(a -> a.instanceId().equals(instanceId) && a.state() != Attachment.State.DETACHED)
        .findFirst();
  }

  /** Attachments that still hold the volume (attaching, attached, detaching, busy). */
  public List<Attachment> activeAttachments() {
    return attachments.stream().filter(a -> a.state() != Attachment.State.DETACHED).toList();
  }

  public String tag(String key) {
    return tags.getOrDefault(key, "");
  }
}
