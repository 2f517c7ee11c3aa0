package io.awscsi.ebs.controller;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.concurrent.KeyedLocks;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.GroupSnapshot;
import io.awscsi.core.provider.GroupSnapshotManager;
import io.awscsi.core.provider.GroupSnapshotRequest;
import io.awscsi.core.provider.Snapshot;
import io.awscsi.ebs.cloud.Attachment;
import io.awscsi.ebs.cloud.Disk;
import io.awscsi.ebs.cloud.DiskSnapshot;
import io.awscsi.ebs.cloud.EbsCloud;
import io.awscsi.ebs.cloud.Ec2Instance;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Volume group snapshots on EC2. EC2 has no group object: a group is the set of snapshots carrying its
 * {@code CSIVolumeGroupSnapshotId} tag ({@code groupsnap-} and 17 hex digits, made up by the driver), found again by
 * its {@code CSIVolumeGroupSnapshotName} tag, so create is idempotent by name (the same members: the same group;
 * others: AlreadyExists). EC2's CreateSnapshots takes the volumes attached to one instance at one point in time; it
 * is the only crash-consistent multi-volume snapshot EC2 offers, so members attached to one instance are taken in one
 * CreateSnapshots call that excludes the instance's other volumes (the boot volume by its flag, data volumes by id).
 * Members spread over several instances, or not attached, cannot be taken at one instant: refused with
 * FAILED_PRECONDITION naming where each is, unless the class says {@code crashConsistency: bestEffort}, which takes
 * one CreateSnapshots per instance and a CreateSnapshot per unattached volume and tags every member
 * {@code CSIVolumeGroupSnapshotConsistency=best-effort}.
 */
final class EbsGroupSnapshotManager implements GroupSnapshotManager {

  private static final Logger LOG = LogManager.getLogger(EbsGroupSnapshotManager.class);
  static final String CRASH_CONSISTENT = "crash-consistent";
  static final String BEST_EFFORT = "best-effort";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final EbsCloud ec2;
  private final EbsControllerOptions options;
  private final ResourceTags tags;
  private final KeyedLocks names = new KeyedLocks();

  EbsGroupSnapshotManager(EbsCloud ec2, EbsControllerOptions options, ResourceTags tags) {
    this.ec2 = ec2;
    this.options = options;
    this.tags = tags;
  }

  @Override
  public GroupSnapshot createGroupSnapshot(GroupSnapshotRequest request) {
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    GroupSnapshotParameters parameters = GroupSnapshotParameters.parse(request.parameters());
    String name = request.name();
    Set<String> members = new LinkedHashSet<>(request.sourceVolumeIds());
    try (KeyedLocks.Held held = CallDeadlines.lock(names, name, deadline, "CreateVolumeGroupSnapshot " + name)) {
      List<DiskSnapshot> existing = ec2.snapshotsTagged(EbsCloud.GROUP_SNAPSHOT_NAME_TAG, name, deadline).stream()
          .filter(s -> s.state() != DiskSnapshot.State.ERROR).toList();
      if (!existing.isEmpty()) {
        return existingGroup(name, members, existing);
      }
      Map<String, Set<String>> instancesByVolume = placement(members, deadline);
      Set<String> common = new TreeSet<>(instancesByVolume.values().iterator().next());
      instancesByVolume.values().forEach(common::retainAll);
      String groupId = "groupsnap-" + HexFormat.of().formatHex(randomBytes()).substring(0, 17);
      Map<String, String> userTags = tags.userTags(parameters.tagSpecifications(), parameters.templateFields());
      List<DiskSnapshot> taken;
      if (!common.isEmpty()) {
        String instanceId = common.iterator().next();
        taken = snapshotOnInstance(instanceId, members, groupId, tags.forGroupSnapshot(name, groupId,
            CRASH_CONSISTENT, userTags, parameters.createdForTags()), deadline);
        LOG.info("CreateVolumeGroupSnapshot: {} created as {} (crash-consistent, one CreateSnapshots on {}): {}",
            name, groupId, instanceId, ids(taken));
      } else if (!parameters.bestEffort()) {
        throw DriverException.failedPrecondition("the volumes of group snapshot " + name + " are not all attached to "
            + "one instance (" + describe(instancesByVolume) + "); EC2 takes a crash-consistent snapshot only of "
            + "volumes attached to one instance (CreateSnapshots). Attach them to one node, or set crashConsistency: "
            + "bestEffort in the VolumeGroupSnapshotClass to take them without that promise");
      } else {
        taken = bestEffort(name, groupId, members, instancesByVolume, tags.forGroupSnapshot(name, groupId,
            BEST_EFFORT, userTags, parameters.createdForTags()), deadline);
        LOG.warn("CreateVolumeGroupSnapshot: {} created as {} by best effort, NOT crash-consistent ({}): {}", name,
            groupId, describe(instancesByVolume), ids(taken));
      }
      return group(groupId, taken);
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, "CreateVolumeGroupSnapshot " + name + " of " + members);
    }
  }

  private static byte[] randomBytes() {
    byte[] bytes = new byte[9];
    RANDOM.nextBytes(bytes);
    return bytes;
  }

  private GroupSnapshot existingGroup(String name, Set<String> members, List<DiskSnapshot> existing) {
    Set<String> had = existing.stream().map(DiskSnapshot::volumeId).collect(Collectors.toCollection(TreeSet::new));
    String groupId = existing.getFirst().tag(EbsCloud.GROUP_SNAPSHOT_ID_TAG);
    if (!had.equals(new TreeSet<>(members))) {
      throw DriverException.alreadyExists("group snapshot " + groupId + " already exists under the name " + name
          + " with the volumes " + had + ", not " + new TreeSet<>(members) + "; use another name");
    }
    LOG.info("CreateVolumeGroupSnapshot: {} already exists as {}", name, groupId);
    return group(groupId, existing);
  }

  /** The instances each member is attached to (attached, not attaching or detaching); NotFound for a missing one. */
  private Map<String, Set<String>> placement(Set<String> members, CallDeadline deadline) {
    Map<String, Set<String>> instances = new LinkedHashMap<>();
    for (String volumeId : members) {
      Disk disk = ec2.disk(volumeId, deadline).filter(d -> d.state() != Disk.State.DELETED)
          .orElseThrow(() -> DriverException.notFound("source volume " + volumeId + " does not exist"));
      instances.put(volumeId, disk.attachments().stream().filter(a -> a.state() == Attachment.State.ATTACHED)
          .map(Attachment::instanceId).collect(Collectors.toCollection(TreeSet::new)));
    }
    return instances;
  }

  /**
   * One CreateSnapshots on {@code instanceId} that excludes every volume of the instance that is not a member. A
   * volume attached between the Describe and the call would be taken too: its snapshot is deleted again. A member
   * detached in between is missing: everything taken is deleted and the call fails UNAVAILABLE, to be retried.
   */
  private List<DiskSnapshot> snapshotOnInstance(String instanceId, Set<String> members, String groupId,
      Map<String, String> snapshotTags, CallDeadline deadline) {
    Ec2Instance instance = ec2.instance(instanceId, deadline).orElseThrow(() -> DriverException.unavailable(
        "instance " + instanceId + " of the group's volumes is gone; retry"));
    String root = instance.rootVolumeId();
    List<String> excluded = instance.volumesByDevice().values().stream()
        .filter(v -> !v.isEmpty() && !v.equals(root) && !members.contains(v)).distinct().sorted().toList();
    List<DiskSnapshot> taken = ec2.createSnapshots(instanceId, !members.contains(root), excluded,
        "Group snapshot " + groupId + " by the EBS CSI driver of " + String.join(", ", members), snapshotTags,
        deadline);
    List<DiskSnapshot> kept = new ArrayList<>();
    for (DiskSnapshot s : taken) {
      if (members.contains(s.volumeId())) {
        kept.add(s);
      } else {
        LOG.warn("CreateVolumeGroupSnapshot: {} took {} of {}, not a member (attached meanwhile); deleting it",
            groupId, s.snapshotId(), s.volumeId());
        deleteQuietly(s.snapshotId(), deadline);
      }
    }
    Set<String> got = kept.stream().map(DiskSnapshot::volumeId).collect(Collectors.toSet());
    if (!got.containsAll(members)) {
      kept.forEach(s -> deleteQuietly(s.snapshotId(), deadline));
      throw DriverException.unavailable("CreateSnapshots on " + instanceId + " did not take "
          + members.stream().filter(m -> !got.contains(m)).toList() + " (detached meanwhile?); the snapshots taken "
          + "were deleted; retry");
    }
    return kept;
  }

  /** One CreateSnapshots per instance holding members (each crash-consistent within itself), the rest one by one. */
  private List<DiskSnapshot> bestEffort(String name, String groupId, Set<String> members,
      Map<String, Set<String>> instancesByVolume, Map<String, String> snapshotTags, CallDeadline deadline) {
    Map<String, Set<String>> byInstance = new LinkedHashMap<>();
    List<String> unattached = new ArrayList<>();
    for (String volumeId : members) {
      Set<String> on = instancesByVolume.get(volumeId);
      if (on.isEmpty()) {
        unattached.add(volumeId);
      } else {
        byInstance.computeIfAbsent(on.iterator().next(), k -> new LinkedHashSet<>()).add(volumeId);
      }
    }
    List<DiskSnapshot> taken = new ArrayList<>();
    try {
      for (Map.Entry<String, Set<String>> e : byInstance.entrySet()) {
        taken.addAll(snapshotOnInstance(e.getKey(), e.getValue(), groupId, snapshotTags, deadline));
      }
      for (String volumeId : unattached) {
        taken.add(ec2.createSnapshot(volumeId, "Group snapshot " + groupId + " (best effort) by the EBS CSI driver",
            "", snapshotTags, deadline));
      }
    } catch (RuntimeException e) {
      LOG.warn("CreateVolumeGroupSnapshot: {} failed part way ({}); deleting the {} snapshot(s) taken", name,
          e.getMessage(), taken.size());
      taken.forEach(s -> deleteQuietly(s.snapshotId(), deadline));
      throw e;
    }
    return taken;
  }

  private void deleteQuietly(String snapshotId, CallDeadline deadline) {
    try {
      ec2.deleteSnapshot(snapshotId, deadline);
    } catch (AwsCallException e) {
      LOG.warn("CreateVolumeGroupSnapshot: deleting {} failed too: {}", snapshotId, e.getMessage());
    }
  }

  @Override
  public void deleteGroupSnapshot(String groupSnapshotId, List<String> snapshotIds, Map<String, String> secrets) {
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    try {
      List<DiskSnapshot> members = ec2.snapshotsTagged(EbsCloud.GROUP_SNAPSHOT_ID_TAG, groupSnapshotId, deadline);
      // A retry after a partial delete lists members already gone: only a member the CO did not name is a mismatch.
      List<String> unnamed = members.stream().map(DiskSnapshot::snapshotId)
          .filter(id -> !snapshotIds.isEmpty() && !snapshotIds.contains(id)).toList();
      if (!unnamed.isEmpty()) {
        throw DriverException.invalidArgument("snapshot_ids", "group snapshot " + groupSnapshotId + " also holds "
            + unnamed + ", not in snapshot_ids " + snapshotIds);
      }
      for (DiskSnapshot s : members) {
        try {
          ec2.deleteSnapshot(s.snapshotId(), deadline);
        } catch (AwsCallException e) {
          if (!(e.error() instanceof AwsCallError.NotFound)) {
            throw e;
          }
        }
      }
      LOG.info("DeleteVolumeGroupSnapshot: {} deleted ({} snapshot(s): {})", groupSnapshotId, members.size(),
          members.stream().map(DiskSnapshot::snapshotId).toList());
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, "DeleteVolumeGroupSnapshot " + groupSnapshotId);
    }
  }

  @Override
  public GroupSnapshot getGroupSnapshot(String groupSnapshotId, List<String> snapshotIds,
      Map<String, String> secrets) {
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    try {
      List<DiskSnapshot> members = ec2.snapshotsTagged(EbsCloud.GROUP_SNAPSHOT_ID_TAG, groupSnapshotId, deadline);
      if (members.isEmpty()) {
        throw DriverException.notFound("group snapshot " + groupSnapshotId + " does not exist");
      }
      Set<String> have = members.stream().map(DiskSnapshot::snapshotId).collect(Collectors.toCollection(TreeSet::new));
      if (!snapshotIds.isEmpty() && !have.equals(new TreeSet<>(snapshotIds))) {
        throw DriverException.invalidArgument("snapshot_ids", "group snapshot " + groupSnapshotId + " holds " + have
            + ", not " + new TreeSet<>(snapshotIds));
      }
      return group(groupSnapshotId, members);
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, "GetVolumeGroupSnapshot " + groupSnapshotId);
    }
  }

  /** The group as the CO sees it: members in a stable order, taken at the earliest member's start. */
  private static GroupSnapshot group(String groupId, List<DiskSnapshot> members) {
    List<Snapshot> snapshots = members.stream().sorted(Comparator.comparing(DiskSnapshot::volumeId))
        .map(EbsSnapshotManager::snapshot).toList();
    Instant createdAt = snapshots.stream().map(Snapshot::createdAt).min(Comparator.naturalOrder())
        .orElse(Instant.EPOCH);
    return new GroupSnapshot(groupId, snapshots, createdAt);
  }

  private static String describe(Map<String, Set<String>> instancesByVolume) {
    return instancesByVolume.entrySet().stream().map(e -> e.getKey() + ": " + (e.getValue().isEmpty()
        ? "not attached" : String.join(", ", e.getValue()))).collect(Collectors.joining("; "));
  }

  private static List<String> ids(List<DiskSnapshot> snapshots) {
    return snapshots.stream().map(s -> s.volumeId() + "=" + s.snapshotId()).toList();
  }
}
