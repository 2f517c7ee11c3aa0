package io.awscsi.ebs.cloud;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.AwsCallMetrics;
import io.awscsi.aws.call.AwsCallRunner;
import io.awscsi.aws.call.AwsRateLimits;
import io.awscsi.aws.call.AwsRetryPolicy;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.Reachability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.AttachVolumeResponse;
import software.amazon.awssdk.services.ec2.model.CopyVolumesResponse;
import software.amazon.awssdk.services.ec2.model.CreateSnapshotResponse;
import software.amazon.awssdk.services.ec2.model.CreateSnapshotsResponse;
import software.amazon.awssdk.services.ec2.model.CreateVolumeResponse;
import software.amazon.awssdk.services.ec2.model.DescribeSnapshotsResponse;
import software.amazon.awssdk.services.ec2.model.DescribeVolumeStatusResponse;
import software.amazon.awssdk.services.ec2.model.DescribeVolumesResponse;
import software.amazon.awssdk.services.ec2.model.DetachVolumeResponse;
import software.amazon.awssdk.services.ec2.model.EnableFastSnapshotRestoresResponse;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.InitializationStatusDetails;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.InstanceBlockDeviceMapping;
import software.amazon.awssdk.services.ec2.model.InstanceSpecification;
import software.amazon.awssdk.services.ec2.model.ModifyVolumeRequest;
import software.amazon.awssdk.services.ec2.model.ResourceType;
import software.amazon.awssdk.services.ec2.model.Snapshot;
import software.amazon.awssdk.services.ec2.model.Tag;
import software.amazon.awssdk.services.ec2.model.TagSpecification;
import software.amazon.awssdk.services.ec2.model.Volume;
import software.amazon.awssdk.services.ec2.model.VolumeAttachment;
import software.amazon.awssdk.services.ec2.model.VolumeStatusItem;
import software.amazon.awssdk.services.ec2.model.VolumeStatusName;

/**
 * The {@link EbsCloud} on EC2 through the SDK: records in, records out, no SDK type crosses it. Lookups of volumes,
 * instances, snapshots and modifications are batched across concurrent operations; every request goes through
 * the shared {@link AwsCallRunner} (per-action rate limit, retries, metrics, readiness) with EC2's error mapping
 * ({@link Ec2ErrorCodes}) and is bounded by the caller's {@link CallDeadline}.
 */
public final class SdkEbsCloud implements EbsCloud {

  private static final int TAG_PAGE = 500;

  private final Ec2Client ec2;
  private final AwsCallRunner calls;
  private final DescribeBatcher<String, Disk> volumesById;
  private final DescribeBatcher<String, List<Disk>> volumesByName;
  private final DescribeBatcher<String, Ec2Instance> instancesById;
  private final DescribeBatcher<String, DiskSnapshot> snapshotsById;
  private final DescribeBatcher<String, List<DiskSnapshot>> snapshotsByName;
  private final DescribeBatcher<String, VolumeModification> modificationsByVolume;
  /** How long the region's zones are reused. */
  static final Duration ZONES_TTL = Duration.ofHours(1);

  private volatile CachedZones zones;
  private final Reachability reachability = new Reachability("EC2");

  public SdkEbsCloud(Ec2Client ec2, DescribeBatching batching, AwsRateLimits limits, AwsRetryPolicy retryPolicy,
      MetricsRegistry metrics) {
    this.ec2 = ec2;
    this.calls = new AwsCallRunner("EC2", Ec2ErrorCodes.MAPPING, limits, retryPolicy, AwsCallMetrics.EC2, metrics,
        reachability);
    Duration delay = batching.delay();
    volumesById = new DescribeBatcher<>("DescribeVolumes by id", batching.entries(DescribeBatching.VOLUMES), delay,
        this::describeVolumesById);
    volumesByName = new DescribeBatcher<>("DescribeVolumes by name", batching.entries(DescribeBatching.VOLUMES), delay,
        (names, d) -> groupByTag(describeVolumesByTag(names, d), VOLUME_NAME_TAG, Disk::tags));
    instancesById = new DescribeBatcher<>("DescribeInstances by id",
        batching.entries(DescribeBatching.INSTANCES), delay,
        this::describeInstances);
    snapshotsById = new DescribeBatcher<>("DescribeSnapshots by id",
        batching.entries(DescribeBatching.SNAPSHOTS), delay,
        this::describeSnapshotsById);
    snapshotsByName = new DescribeBatcher<>("DescribeSnapshots by name",
        batching.entries(DescribeBatching.SNAPSHOTS), delay,
        (names, d) -> groupByTag(describeSnapshotsByTag(SNAPSHOT_NAME_TAG, names, d), SNAPSHOT_NAME_TAG,
            DiskSnapshot::tags));
    modificationsByVolume = new DescribeBatcher<>("DescribeVolumesModifications by volume",
        batching.entries(DescribeBatching.MODIFICATIONS), delay, this::describeModifications);
  }

  // ---- volumes

  /** CreateVolume, or CopyVolumes when the spec names a source volume. The disk is usually still creating. */
  @Override
  public Disk createDisk(DiskSpec spec, String clientToken, CallDeadline deadline) {
    List<TagSpecification> tags = List.of(tagSpecification(ResourceType.VOLUME, spec.tags()));
    if (spec.isCopy()) {
      CopyVolumesResponse response = calls.run(Ec2Action.COPY_VOLUMES, deadline, o -> ec2.copyVolumes(r -> {
        r.overrideConfiguration(o).sourceVolumeId(spec.sourceVolumeId()).size(spec.sizeGiB())
            .volumeType(spec.volumeType()).tagSpecifications(tags).clientToken(clientToken);
        if (spec.iops() > 0) {
          r.iops(spec.iops());
        }
        if (spec.throughput() > 0) {
          r.throughput(spec.throughput());
        }
        if (spec.multiAttach()) {
          r.multiAttachEnabled(true);
        }
      }));
      if (!response.hasVolumes() || response.volumes().isEmpty()) {
        throw new AwsCallException(new AwsCallError.Unexpected("EmptyResponse",
            "CopyVolumes of " + spec.sourceVolumeId() + " answered without a volume"));
      }
      return disk(response.volumes().getFirst());
    }
    CreateVolumeResponse v = calls.run(Ec2Action.CREATE_VOLUME, deadline, o -> ec2.createVolume(r -> {
      r.overrideConfiguration(o).size(spec.sizeGiB()).volumeType(spec.volumeType()).encrypted(spec.encrypted())
          .tagSpecifications(tags).clientToken(clientToken);
      if (!spec.zoneId().isEmpty()) {
        r.availabilityZoneId(spec.zoneId());
      } else {
        r.availabilityZone(spec.zone());
      }
      if (!spec.outpostArn().isEmpty()) {
        r.outpostArn(spec.outpostArn());
      }
      if (spec.iops() > 0) {
        r.iops(spec.iops());
      }
      if (spec.throughput() > 0) {
        r.throughput(spec.throughput());
      }
      if (!spec.kmsKeyId().isEmpty()) {
        r.kmsKeyId(spec.kmsKeyId());
      }
      if (!spec.snapshotId().isEmpty()) {
        r.snapshotId(spec.snapshotId());
      }
      if (spec.multiAttach()) {
        r.multiAttachEnabled(true);
      }
      if (spec.initializationRate() > 0) {
        r.volumeInitializationRate(spec.initializationRate());
      }
    }));
    return new Disk(v.volumeId(), orZero(v.size()), v.availabilityZone(), v.availabilityZoneId(), v.outpostArn(),
        v.volumeTypeAsString(), orZero(v.iops()), orZero(v.throughput()), Boolean.TRUE.equals(v.encrypted()),
        v.kmsKeyId(), Boolean.TRUE.equals(v.multiAttachEnabled()), v.snapshotId(), Disk.State.of(v.stateAsString()),
        v.createTime(), v.hasAttachments() ? v.attachments().stream().map(SdkEbsCloud::attachment).toList() : List.of(),
        v.hasTags() ? tags(v.tags()) : spec.tags());
  }

  /** The volume by id (batched); empty when it does not exist. */
  @Override
  public Optional<Disk> disk(String volumeId, CallDeadline deadline) {
    return volumesById.get(volumeId, deadline);
  }

  /** Volumes carrying {@code CSIVolumeName=name} (batched). */
  @Override
  public List<Disk> disksNamed(String name, CallDeadline deadline) {
    return volumesByName.get(name, deadline).orElse(List.of());
  }

  /** One page of all volumes of the account and region, with EC2's paging token. */
  @Override
  public ListChunk<Disk> listDisks(int maxResults, String ec2Token, CallDeadline deadline) {
    DescribeVolumesResponse response = calls.run(Ec2Action.DESCRIBE_VOLUMES, deadline, o -> ec2.describeVolumes(r -> {
      r.overrideConfiguration(o).maxResults(Math.clamp(maxResults, 5, 500));
      if (!ec2Token.isEmpty()) {
        r.nextToken(ec2Token);
      }
    }));
    return new ListChunk<>(response.volumes().stream().map(SdkEbsCloud::disk).toList(), response.nextToken());
  }

  @Override
  public void deleteDisk(String volumeId, CallDeadline deadline) {
    calls.run(Ec2Action.DELETE_VOLUME, deadline, o -> ec2.deleteVolume(r -> r.overrideConfiguration(o)
        .volumeId(volumeId)));
  }

  /**
   * DescribeVolumeStatus, not batched: it is asked once per publish of a volume whose StorageClass blocks attaching
   * until it is initialized, and then at most once a minute (see the controller's initialization gate).
   */
  @Override
  public VolumeInitialization initialization(String volumeId, CallDeadline deadline) {
    DescribeVolumeStatusResponse response = calls.run(Ec2Action.DESCRIBE_VOLUME_STATUS, deadline,
        o -> ec2.describeVolumeStatus(r -> r.overrideConfiguration(o).volumeIds(volumeId)));
    VolumeStatusItem item = response.volumeStatuses().stream().filter(v -> volumeId.equals(v.volumeId())).findFirst()
        .orElseThrow(() -> new AwsCallException(new AwsCallError.Unexpected("MissingVolumeStatus",
            "DescribeVolumeStatus did not report volume " + volumeId)));
    return initialization(item);
  }

  /** EC2's answer in the driver's terms: initializing while the {@code initialization-state} detail says so. */
  static VolumeInitialization initialization(VolumeStatusItem item) {
    boolean initializing = item.volumeStatus() != null && item.volumeStatus().details().stream()
        .anyMatch(d -> d.name() == VolumeStatusName.INITIALIZATION_STATE && "initializing".equals(d.status()));
    if (!initializing) {
      return VolumeInitialization.COMPLETE;
    }
    InitializationStatusDetails details = item.initializationStatusDetails();
    OptionalInt progress = details != null && details.progress() != null
        ? OptionalInt.of((int) Math.clamp(details.progress(), 0, 100)) : OptionalInt.empty();
    Optional<Duration> left = details != null && details.estimatedTimeToCompleteInSeconds() != null
        ? Optional.of(Duration.ofSeconds(Math.max(0, details.estimatedTimeToCompleteInSeconds())))
        : Optional.empty();
    return new VolumeInitialization(true, progress, left);
  }

  // ---- attachments

  @Override
  public Attachment attach(String volumeId, String instanceId, String device, OptionalInt ebsCard,
      CallDeadline deadline) {
    AttachVolumeResponse a = calls.run(Ec2Action.ATTACH_VOLUME, deadline, o -> ec2.attachVolume(r -> {
      r.overrideConfiguration(o).volumeId(volumeId).instanceId(instanceId).device(device);
      ebsCard.ifPresent(r::ebsCardIndex);
    }));
    return new Attachment(volumeId, instanceId, a.device() == null ? device : a.device(),
        Attachment.State.of(a.stateAsString()), a.attachTime(), card(a.ebsCardIndex()));
  }

  /** DetachVolume; the answer names the device the attachment used. */
  @Override
  public Attachment detach(String volumeId, String instanceId, CallDeadline deadline) {
    DetachVolumeResponse a = calls.run(Ec2Action.DETACH_VOLUME, deadline, o -> ec2.detachVolume(r -> r
        .overrideConfiguration(o).volumeId(volumeId).instanceId(instanceId)));
    return new Attachment(volumeId, instanceId, a.device() == null ? "" : a.device(),
        Attachment.State.of(a.stateAsString()), a.attachTime());
  }

  /** The instance by id (batched); empty when it does not exist. */
  @Override
  public Optional<Ec2Instance> instance(String instanceId, CallDeadline deadline) {
    return instancesById.get(instanceId, deadline);
  }

  @Override
  public OptionalInt maximumEbsCards(String instanceType, CallDeadline deadline) {
    return calls.run(Ec2Action.DESCRIBE_INSTANCE_TYPES, deadline, o -> ec2.describeInstanceTypes(r -> r
        .overrideConfiguration(o).instanceTypesWithStrings(instanceType))).instanceTypes().stream()
        .filter(t -> t.ebsInfo() != null && t.ebsInfo().maximumEbsCards() != null)
        .mapToInt(t -> t.ebsInfo().maximumEbsCards()).findFirst();
  }

  // ---- modifications and tags

  @Override
  public VolumeModification modify(String volumeId, DiskChange change, CallDeadline deadline) {
    ModifyVolumeRequest.Builder request = ModifyVolumeRequest.builder().volumeId(volumeId);
    if (change.sizeGiB() > 0) {
      request.size(change.sizeGiB());
    }
    if (!change.volumeType().isEmpty()) {
      request.volumeType(change.volumeType());
    }
    if (change.iops() > 0) {
      request.iops(change.iops());
    }
    if (change.throughput() > 0) {
      request.throughput(change.throughput());
    }
    return modification(calls.run(Ec2Action.MODIFY_VOLUME, deadline,
        o -> ec2.modifyVolume(request.overrideConfiguration(o).build())).volumeModification());
  }

  /** The latest modification of the volume (batched); empty when it was never modified. */
  @Override
  public Optional<VolumeModification> latestModification(String volumeId, CallDeadline deadline) {
    return modificationsByVolume.get(volumeId, deadline);
  }

  @Override
  public void createTags(String resourceId, Map<String, String> tags, CallDeadline deadline) {
    calls.run(Ec2Action.CREATE_TAGS, deadline, o -> ec2.createTags(r -> r.overrideConfiguration(o)
        .resources(resourceId).tags(toTags(tags))));
  }

  @Override
  public void deleteTags(String resourceId, Set<String> keys, CallDeadline deadline) {
    calls.run(Ec2Action.DELETE_TAGS, deadline, o -> ec2.deleteTags(r -> r.overrideConfiguration(o)
        .resources(resourceId).tags(keys.stream().map(k -> Tag.builder().key(k).build()).toList())));
  }

  // ---- snapshots

  /** CreateSnapshot; {@code outpostArn} empty for a snapshot in the region. */
  @Override
  public DiskSnapshot createSnapshot(String volumeId, String description, String outpostArn, Map<String, String> tags,
      CallDeadline deadline) {
    CreateSnapshotResponse s = calls.run(Ec2Action.CREATE_SNAPSHOT, deadline, o -> ec2.createSnapshot(r -> {
      r.overrideConfiguration(o).volumeId(volumeId).description(description)
          .tagSpecifications(tagSpecification(ResourceType.SNAPSHOT, tags));
      if (!outpostArn.isEmpty()) {
        r.outpostArn(outpostArn);
      }
    }));
    return new DiskSnapshot(s.snapshotId(), s.volumeId(), orZero(s.volumeSize()), DiskSnapshot.State.of(
        s.stateAsString()), s.startTime(), s.outpostArn(), s.hasTags() ? tags(s.tags()) : tags);
  }

  @Override
  public List<DiskSnapshot> createSnapshots(String instanceId, boolean excludeBootVolume,
      List<String> excludeDataVolumeIds, String description, Map<String, String> tags, CallDeadline deadline) {
    CreateSnapshotsResponse response = calls.run(Ec2Action.CREATE_SNAPSHOTS, deadline, o -> ec2.createSnapshots(r -> r
        .overrideConfiguration(o).description(description)
        .instanceSpecification(InstanceSpecification.builder().instanceId(instanceId)
            .excludeBootVolume(excludeBootVolume).excludeDataVolumeIds(excludeDataVolumeIds).build())
        .tagSpecifications(tagSpecification(ResourceType.SNAPSHOT, tags))));
    return response.snapshots().stream().map(s -> new DiskSnapshot(s.snapshotId(), s.volumeId(),
        orZero(s.volumeSize()), DiskSnapshot.State.of(s.stateAsString()), s.startTime(), s.outpostArn(),
        s.hasTags() ? tags(s.tags()) : tags)).toList();
  }

  @Override
  public List<DiskSnapshot> snapshotsTagged(String key, String value, CallDeadline deadline) {
    return describeSnapshotsByTag(key, Set.of(value), deadline);
  }

  @Override
  public Optional<DiskSnapshot> snapshot(String snapshotId, CallDeadline deadline) {
    return snapshotsById.get(snapshotId, deadline);
  }

  @Override
  public List<DiskSnapshot> snapshotsNamed(String name, CallDeadline deadline) {
    return snapshotsByName.get(name, deadline).orElse(List.of());
  }

  /** One page of this account's snapshots, all or of one source volume, with EC2's paging token. */
  @Override
  public ListChunk<DiskSnapshot> listSnapshots(String sourceVolumeId, int maxResults, String ec2Token,
      CallDeadline deadline) {
    DescribeSnapshotsResponse response = calls.run(Ec2Action.DESCRIBE_SNAPSHOTS, deadline,
        o -> ec2.describeSnapshots(r -> {
          r.overrideConfiguration(o).ownerIds("self").maxResults(Math.clamp(maxResults, 5, 1000));
          if (!sourceVolumeId.isEmpty()) {
            r.filters(Filter.builder().name("volume-id").values(sourceVolumeId).build());
          }
          if (!ec2Token.isEmpty()) {
            r.nextToken(ec2Token);
          }
        }));
    return new ListChunk<>(response.snapshots().stream().map(SdkEbsCloud::snapshot).toList(), response.nextToken());
  }

  @Override
  public void deleteSnapshot(String snapshotId, CallDeadline deadline) {
    calls.run(Ec2Action.DELETE_SNAPSHOT, deadline, o -> ec2.deleteSnapshot(r -> r.overrideConfiguration(o)
        .snapshotId(snapshotId)));
  }

  @Override
  public void enableFastSnapshotRestores(String snapshotId, List<String> zones, CallDeadline deadline) {
    EnableFastSnapshotRestoresResponse response = calls.run(Ec2Action.ENABLE_FAST_SNAPSHOT_RESTORES, deadline,
        o -> ec2.enableFastSnapshotRestores(r -> r.overrideConfiguration(o).sourceSnapshotIds(snapshotId)
            .availabilityZones(zones)));
    if (response.hasUnsuccessful() && !response.unsuccessful().isEmpty()) {
      String why = response.unsuccessful().stream()
          .flatMap(u -> u.fastSnapshotRestoreStateErrors().stream())
          .map(e -> e.availabilityZone() + ": " + e.error().message())
          .collect(Collectors.joining("; "));
      throw new AwsCallException(new AwsCallError.InvalidRequest("FastSnapshotRestoreFailed",
          "EnableFastSnapshotRestores for " + snapshotId + " failed: " + why));
    }
  }

  @Override
  public void lockSnapshot(String snapshotId, SnapshotLock lock, CallDeadline deadline) {
    calls.run(Ec2Action.LOCK_SNAPSHOT, deadline, o -> ec2.lockSnapshot(r -> {
      r.overrideConfiguration(o).snapshotId(snapshotId).lockMode(lock.mode());
      if (lock.durationDays() > 0) {
        r.lockDuration(lock.durationDays());
      }
      if (lock.expiresAt() != null) {
        r.expirationDate(lock.expiresAt());
      }
      if (lock.coolOffHours() > 0) {
        r.coolOffPeriod(lock.coolOffHours());
      }
    }));
  }

  // ---- region

  /**
   * The region's available zones, in EC2's order. Cached for {@link #ZONES_TTL} (zones of a region hardly change
   * under a running driver); every volume's zone is checked against them before anything is created.
   */
  @Override
  public List<Zone> availabilityZones(CallDeadline deadline) {
    CachedZones known = zones;
    if (known == null || System.nanoTime() - known.fetchedAt() > ZONES_TTL.toNanos()) {
      List<Zone> fetched = calls.run(Ec2Action.DESCRIBE_AVAILABILITY_ZONES, deadline, o -> ec2
          .describeAvailabilityZones(r -> r.overrideConfiguration(o))).availabilityZones().stream()
          .filter(z -> z.zoneName() != null && !z.zoneName().isEmpty())
          .filter(z -> z.stateAsString() == null || z.stateAsString().equals("available"))
          .map(z -> new Zone(z.zoneName(), z.zoneId())).toList();
      known = new CachedZones(fetched, System.nanoTime());
      zones = known;
    }
    return known.zones();
  }

  private record CachedZones(List<Zone> zones, long fetchedAt) {}

  /** Whether EC2 answered the driver's latest calls (readiness, without calls of its own). */
  @Override
  public Reachability reachability() {
    return reachability;
  }

  /** Describe calls made by the batchers, by batcher (for the benchmark). */
  @Override
  public Map<String, Long> batchedLookups() {
    return Map.of("DescribeVolumes", volumesById.fetchCalls() + volumesByName.fetchCalls(),
        "DescribeInstances", instancesById.fetchCalls(),
        "DescribeSnapshots", snapshotsById.fetchCalls() + snapshotsByName.fetchCalls(),
        "DescribeVolumesModifications", modificationsByVolume.fetchCalls());
  }

  // ---- batched Describe calls

  private Map<String, Disk> describeVolumesById(Set<String> ids, CallDeadline deadline) {
    DescribeVolumesResponse response = calls.run(Ec2Action.DESCRIBE_VOLUMES, deadline, o -> ec2.describeVolumes(r -> r
        .overrideConfiguration(o).volumeIds(ids)));
    return response.volumes().stream().map(SdkEbsCloud::disk)
        .collect(Collectors.toMap(Disk::volumeId, d -> d, (a, b) -> a));
  }

  private List<Disk> describeVolumesByTag(Set<String> names, CallDeadline deadline) {
    List<Disk> all = new ArrayList<>();
    String token = "";
    do {
      String page = token;
      DescribeVolumesResponse response = calls.run(Ec2Action.DESCRIBE_VOLUMES, deadline,
          o -> ec2.describeVolumes(r -> {
            r.overrideConfiguration(o).maxResults(TAG_PAGE)
                .filters(Filter.builder().name("tag:" + VOLUME_NAME_TAG).values(names).build());
            if (!page.isEmpty()) {
              r.nextToken(page);
            }
          }));
      response.volumes().stream().map(SdkEbsCloud::disk).forEach(all::add);
      token = response.nextToken() == null ? "" : response.nextToken();
    } while (!token.isEmpty());
    return all;
  }

  private Map<String, Ec2Instance> describeInstances(Set<String> ids, CallDeadline deadline) {
    Map<String, Ec2Instance> found = new HashMap<>();
    calls.run(Ec2Action.DESCRIBE_INSTANCES, deadline, o -> ec2.describeInstances(r -> r.overrideConfiguration(o)
        .instanceIds(ids))).reservations().forEach(res -> res.instances().forEach(i -> found.put(i.instanceId(),
            instance(i))));
    return found;
  }

  private Map<String, DiskSnapshot> describeSnapshotsById(Set<String> ids, CallDeadline deadline) {
    return calls.run(Ec2Action.DESCRIBE_SNAPSHOTS, deadline, o -> ec2.describeSnapshots(r -> r
        .overrideConfiguration(o).snapshotIds(ids))).snapshots().stream().map(SdkEbsCloud::snapshot)
        .collect(Collectors.toMap(DiskSnapshot::snapshotId, s -> s, (a, b) -> a));
  }

  private List<DiskSnapshot> describeSnapshotsByTag(String key, Set<String> values, CallDeadline deadline) {
    List<DiskSnapshot> all = new ArrayList<>();
    String token = "";
    do {
      String page = token;
      DescribeSnapshotsResponse response = calls.run(Ec2Action.DESCRIBE_SNAPSHOTS, deadline,
          o -> ec2.describeSnapshots(r -> {
            r.overrideConfiguration(o).maxResults(1000)
                .filters(Filter.builder().name("tag:" + key).values(values).build());
            if (!page.isEmpty()) {
              r.nextToken(page);
            }
          }));
      response.snapshots().stream().map(SdkEbsCloud::snapshot).forEach(all::add);
      token = response.nextToken() == null ? "" : response.nextToken();
    } while (!token.isEmpty());
    return all;
  }

  private Map<String, VolumeModification> describeModifications(Set<String> volumeIds, CallDeadline deadline) {
    return calls.run(Ec2Action.DESCRIBE_VOLUMES_MODIFICATIONS, deadline, o -> ec2.describeVolumesModifications(r -> r
        .overrideConfiguration(o).volumeIds(volumeIds))).volumesModifications().stream()
        .map(SdkEbsCloud::modification)
        .collect(Collectors.toMap(VolumeModification::volumeId, m -> m, SdkEbsCloud::later));
  }

  private static VolumeModification later(VolumeModification a, VolumeModification b) {
    Comparator<VolumeModification> byStart = Comparator.comparing(m -> m.startedAt() == null
        ? java.time.Instant.EPOCH : m.startedAt());
    return byStart.compare(a, b) >= 0 ? a : b;
  }

  /**
   * The answer by exact tag value. EC2 reads {@code *} and {@code ?} in filter values as wildcards (moto does not
   * read their escapes), so a name such as "*" may list other names' volumes: only an exact match counts.
   */
  private static <T> Map<String, List<T>> groupByTag(List<T> items, String tag, Function<T, Map<String, String>> tags) {
    return items.stream().filter(i -> tags.apply(i).containsKey(tag))
        .collect(Collectors.groupingBy(i -> tags.apply(i).get(tag)));
  }

  // ---- SDK to records

  static Disk disk(Volume v) {
    return new Disk(v.volumeId(), orZero(v.size()), v.availabilityZone(), v.availabilityZoneId(), v.outpostArn(),
        v.volumeTypeAsString(), orZero(v.iops()), orZero(v.throughput()), Boolean.TRUE.equals(v.encrypted()),
        v.kmsKeyId(), Boolean.TRUE.equals(v.multiAttachEnabled()), v.snapshotId(), Disk.State.of(v.stateAsString()),
        v.createTime(), v.hasAttachments() ? v.attachments().stream().map(SdkEbsCloud::attachment).toList() : List.of(),
        v.hasTags() ? tags(v.tags()) : Map.of());
  }

  private static Attachment attachment(VolumeAttachment a) {
    return new Attachment(a.volumeId(), a.instanceId(), a.device(), Attachment.State.of(a.stateAsString()),
        a.attachTime(), card(a.ebsCardIndex()));
  }

  private static OptionalInt card(Integer ebsCardIndex) {
    return ebsCardIndex == null ? OptionalInt.empty() : OptionalInt.of(ebsCardIndex);
  }

  private static Ec2Instance instance(Instance i) {
    Map<String, String> devices = new HashMap<>();
    Map<String, Integer> cards = new HashMap<>();
    if (i.hasBlockDeviceMappings()) {
      for (InstanceBlockDeviceMapping m : i.blockDeviceMappings()) {
        devices.put(m.deviceName(), m.ebs() == null || m.ebs().volumeId() == null ? "" : m.ebs().volumeId());
        if (m.ebs() != null && m.ebs().ebsCardIndex() != null) {
          cards.put(m.deviceName(), m.ebs().ebsCardIndex());
        }
      }
    }
    return new Ec2Instance(i.instanceId(), i.instanceTypeAsString(),
        i.placement() == null ? "" : i.placement().availabilityZone(),
        i.state() == null ? "running" : i.state().nameAsString(), devices, cards, i.rootDeviceName());
  }

  private static DiskSnapshot snapshot(Snapshot s) {
    return new DiskSnapshot(s.snapshotId(), s.volumeId(), orZero(s.volumeSize()),
        DiskSnapshot.State.of(s.stateAsString()), s.startTime(), s.outpostArn(),
        s.hasTags() ? tags(s.tags()) : Map.of());
  }

  private static VolumeModification modification(software.amazon.awssdk.services.ec2.model.VolumeModification m) {
    return new VolumeModification(m.volumeId(), VolumeModification.State.of(m.modificationStateAsString()),
        orZero(m.targetSize()), m.targetVolumeTypeAsString(), orZero(m.targetIops()), orZero(m.targetThroughput()),
        m.startTime(), m.statusMessage());
  }

  private static TagSpecification tagSpecification(ResourceType type, Map<String, String> tags) {
    return TagSpecification.builder().resourceType(type).tags(toTags(tags)).build();
  }

  private static List<Tag> toTags(Map<String, String> tags) {
    return tags.entrySet().stream().map(e -> Tag.builder().key(e.getKey()).value(e.getValue()).build()).toList();
  }

  private static Map<String, String> tags(List<Tag> tags) {
    Map<String, String> out = new HashMap<>();
    tags.forEach(t -> out.put(t.key(), t.value() == null ? "" : t.value()));
    return out;
  }

  private static int orZero(Integer value) {
    return value == null ? 0 : value;
  }
}
