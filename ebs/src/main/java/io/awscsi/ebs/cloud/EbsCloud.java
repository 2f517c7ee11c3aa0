package io.awscsi.ebs.cloud;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.provider.Reachability;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * What the EBS controller asks of EC2, in the driver's own records (no SDK type crosses it): volumes, attachments,
 * instances, modifications, tags, snapshots and the region's zones. {@link SdkEbsCloud} is EC2 itself; the tests
 * drive the controller's handlers through an in-memory one. Every call is bounded by the caller's
 * {@link CallDeadline} and fails with a {@link AwsCallException} carrying a {@link AwsCallError}.
 */
public interface EbsCloud {

  /** The tag that names a volume after its CSI CreateVolume name (the PV name), as upstream. */
  String VOLUME_NAME_TAG = "CSIVolumeName";
  /** The tag that names a snapshot after its CSI CreateSnapshot name, as upstream. */
  String SNAPSHOT_NAME_TAG = "CSIVolumeSnapshotName";
  /** The tag that names every snapshot of a volume group snapshot after the group's CSI name (idempotency). */
  String GROUP_SNAPSHOT_NAME_TAG = "CSIVolumeGroupSnapshotName";
  /** The tag that carries the group snapshot id the driver gave the group (Get and Delete find members by it). */
  String GROUP_SNAPSHOT_ID_TAG = "CSIVolumeGroupSnapshotId";
  /** {@code crash-consistent} or {@code best-effort}: what EC2 promised for the group, on every member. */
  String GROUP_SNAPSHOT_CONSISTENCY_TAG = "CSIVolumeGroupSnapshotConsistency";

  // ---- volumes

  /** CreateVolume, or CopyVolumes when the spec names a source volume. The disk is usually still creating. */
  Disk createDisk(DiskSpec spec, String clientToken, CallDeadline deadline);

  /** The volume by id; empty when it does not exist. */
  Optional<Disk> disk(String volumeId, CallDeadline deadline);

  /** Volumes carrying {@code CSIVolumeName=name} exactly. */
  List<Disk> disksNamed(String name, CallDeadline deadline);

  /** One page of all volumes of the account and region, with EC2's paging token. */
  ListChunk<Disk> listDisks(int maxResults, String ec2Token, CallDeadline deadline);

  void deleteDisk(String volumeId, CallDeadline deadline);

  /**
   * DescribeVolumeStatus of one volume: whether it is still initializing (its {@code initialization-state} detail is
   * {@code initializing}) and how far, as EC2 reports it. Fails NOT_FOUND when the volume does not exist.
   */
  VolumeInitialization initialization(String volumeId, CallDeadline deadline);

  // ---- attachments

  /**
   * AttachVolume; the answer is usually still attaching. {@code ebsCard} is the EBS card to attach on (EC2's
   * {@code EbsCardIndex}), empty on an instance type with one card.
   */
  Attachment attach(String volumeId, String instanceId, String device, OptionalInt ebsCard, CallDeadline deadline);

  /** DetachVolume; the answer names the device the attachment used. */
  Attachment detach(String volumeId, String instanceId, CallDeadline deadline);

  /** The instance by id; empty when it does not exist. */
  Optional<Ec2Instance> instance(String instanceId, CallDeadline deadline);

  /**
   * DescribeInstanceTypes of one type: its {@code EbsInfo.MaximumEbsCards}; empty when EC2 does not say (a type with
   * one card). Fails like every call (the caller falls back to a static table).
   */
  OptionalInt maximumEbsCards(String instanceType, CallDeadline deadline);

  // ---- modifications and tags

  VolumeModification modify(String volumeId, DiskChange change, CallDeadline deadline);

  /** The latest modification of the volume; empty when it was never modified. */
  Optional<VolumeModification> latestModification(String volumeId, CallDeadline deadline);

  void createTags(String resourceId, Map<String, String> tags, CallDeadline deadline);

  void deleteTags(String resourceId, Set<String> keys, CallDeadline deadline);

  // ---- snapshots

  /** CreateSnapshot; {@code outpostArn} empty for a snapshot in the region. */
  DiskSnapshot createSnapshot(String volumeId, String description, String outpostArn, Map<String, String> tags,
      CallDeadline deadline);

  /**
   * CreateSnapshots: one snapshot of each volume attached to {@code instanceId}, all taken at one point in time
   * (crash-consistent), except the boot volume when {@code excludeBootVolume} and the data volumes in
   * {@code excludeDataVolumeIds}. Every snapshot carries {@code tags}.
   */
  List<DiskSnapshot> createSnapshots(String instanceId, boolean excludeBootVolume, List<String> excludeDataVolumeIds,
      String description, Map<String, String> tags, CallDeadline deadline);

  Optional<DiskSnapshot> snapshot(String snapshotId, CallDeadline deadline);

  /** Snapshots carrying the tag {@code key=value} exactly. */
  List<DiskSnapshot> snapshotsTagged(String key, String value, CallDeadline deadline);

  /** Snapshots carrying {@code CSIVolumeSnapshotName=name} exactly. */
  List<DiskSnapshot> snapshotsNamed(String name, CallDeadline deadline);

  /** One page of this account's snapshots, all or of one source volume, with EC2's paging token. */
  ListChunk<DiskSnapshot> listSnapshots(String sourceVolumeId, int maxResults, String ec2Token,
      CallDeadline deadline);

  void deleteSnapshot(String snapshotId, CallDeadline deadline);

  void enableFastSnapshotRestores(String snapshotId, List<String> zones, CallDeadline deadline);

  void lockSnapshot(String snapshotId, SnapshotLock lock, CallDeadline deadline);

  // ---- region

  /** The region's available zones, in EC2's order. */
  List<Zone> availabilityZones(CallDeadline deadline);

  /** Whether EC2 answered the driver's latest calls (readiness, without calls of its own). */
  Reachability reachability();

  /** Describe calls made by batched lookups so far, by EC2 action (for the benchmark); empty when not batched. */
  Map<String, Long> batchedLookups();
}
