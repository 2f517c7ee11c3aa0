package io.awscsi.ebs.cloud;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.aws.metadata.OutpostArn;
import io.awscsi.core.provider.Reachability;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * EC2 for the EBS handlers' unit tests, in memory and stateful: volumes, attachments, instances, modifications, tags
 * and snapshots, ClientToken idempotency, and EC2's asynchronous states. A mutating call answers with the
 * transitional state (creating, attaching, detaching, modifying, pending), as EC2 does; the next read sees the final
 * state, unless the test holds transitions ({@link #holdTransitions()}) and steps them itself ({@link #settle()}).
 * Errors are EC2's codes classified by {@link Ec2ErrorCodes}, as {@link SdkEbsCloud} answers them; any call can be
 * made to fail once more with {@link #failNext}. Every call is recorded by its EC2 action ({@link #calls()}).
 */
public final class InMemoryEbsCloud implements EbsCloud {

  private final List<Zone> zones;
  private final Map<String, Volume> volumes = new LinkedHashMap<>();
  private final Map<String, Instance> instances = new LinkedHashMap<>();
  private final Map<String, Snap> snapshots = new LinkedHashMap<>();
  private final Map<String, Modification> modifications = new HashMap<>();
  private final Map<String, Token> tokens = new HashMap<>();
  private final Map<Ec2Action, Queue<AwsCallError>> failures = new EnumMap<>(Ec2Action.class);
  private final List<Ec2Action> calls = new CopyOnWriteArrayList<>();
  private final AtomicInteger ids = new AtomicInteger(0x1000);
  private final Reachability reachability = new Reachability("EC2");
  private boolean autoSettle = true;
  private final Map<String, Integer> maximumEbsCards = new HashMap<>();
  private OptionalInt forcedCard = OptionalInt.empty();
  /** Card of the devices {@link #attachedElsewhere} put on instances, by instance id + device. */
  private final Map<String, Integer> otherCards = new HashMap<>();

  private static final class Volume {
    Disk disk;
    /** A volume restored from a snapshot or copied stays initializing until the test finishes it. */
    VolumeInitialization initialization = VolumeInitialization.COMPLETE;
    final Map<String, Attachment> attachments = new LinkedHashMap<>();
    final Map<String, String> tags = new HashMap<>();

    Volume(Disk disk) {
      this.disk = disk;
      tags.putAll(disk.tags());
    }

    Disk view() {
      Disk.State state = disk.state() == Disk.State.AVAILABLE || disk.state() == Disk.State.IN_USE
          ? (attachments.isEmpty() ? Disk.State.AVAILABLE : Disk.State.IN_USE) : disk.state();
      return new Disk(disk.volumeId(), disk.sizeGiB(), disk.zone(), disk.zoneId(), disk.outpostArn(),
          disk.volumeType(), disk.iops(),
          disk.throughput(), disk.encrypted(), disk.kmsKeyId(), disk.multiAttach(), disk.snapshotId(), state,
          disk.createdAt(), List.copyOf(attachments.values()), tags);
    }
  }

  private record Instance(String id, String type, String zone, String state, Map<String, String> rootDevices) {}

  private static final class Snap {
    DiskSnapshot snapshot;
    final Map<String, String> tags = new HashMap<>();
    boolean locked;
    SnapshotLock lock;
    List<String> fastRestoreZones = List.of();

    Snap(DiskSnapshot snapshot) {
      this.snapshot = snapshot;
      tags.putAll(snapshot.tags());
    }

    DiskSnapshot view() {
      return new DiskSnapshot(snapshot.snapshotId(), snapshot.volumeId(), snapshot.volumeSizeGiB(), snapshot.state(),
          snapshot.startedAt(), snapshot.outpostArn(), tags);
    }
  }

  private record Modification(VolumeModification modification, DiskChange change) {}

  private record Token(DiskSpec spec, String volumeId) {}

  /** A region with these zones (names; ids derived). */
  public InMemoryEbsCloud(String... zoneNames) {
    List<Zone> list = new ArrayList<>();
    for (int i = 0; i < zoneNames.length; i++) {
      list.add(new Zone(zoneNames[i], "use1-az" + (i + 1)));
    }
    this.zones = List.copyOf(list);
  }

  // ---- test controls

  /** A running instance (a node) in {@code zone}; its root volume uses /dev/xvda. */
  public synchronized String runInstance(String zone) {
    return runInstance(zone, "m5.large");
  }

  /** A running instance of {@code instanceType} in {@code zone}; its root volume uses /dev/xvda (on card 0). */
  public synchronized String runInstance(String zone, String instanceType) {
    String id = "i-" + Integer.toHexString(ids.incrementAndGet()) + "00000000";
    instances.put(id, new Instance(id, instanceType, zone, "running", Map.of("/dev/xvda", "vol-root")));
    return id;
  }

  /** What DescribeInstanceTypes says of the type's {@code MaximumEbsCards} from now on (unset: nothing). */
  public synchronized void maximumEbsCards(String instanceType, int cards) {
    maximumEbsCards.put(instanceType, cards);
  }

  /** From now on EC2 puts attachments on {@code card} whatever AttachVolume asked for (a card mismatch). */
  public synchronized void attachOnCard(int card) {
    forcedCard = OptionalInt.of(card);
  }

  /** A volume of someone else attached to the instance on {@code device} and EBS card {@code card}. */
  public synchronized void attachedElsewhere(String instanceId, String device, int card) {
    Instance i = instances.get(instanceId);
    Map<String, String> devices = new HashMap<>(i.rootDevices());
    devices.put(device, "vol-other" + Integer.toHexString(ids.incrementAndGet()));
    instances.put(instanceId, new Instance(i.id(), i.type(), i.zone(), i.state(), devices));
    otherCards.put(instanceId + device, card);
  }

  public synchronized void terminate(String instanceId) {
    Instance i = instances.get(instanceId);
    instances.put(instanceId, new Instance(i.id(), i.type(), i.zone(), "terminated", i.rootDevices()));
  }

  /** A snapshot that already exists, completed, of a volume of {@code sizeGiB}. */
  public synchronized String existingSnapshot(String volumeId, int sizeGiB) {
    String id = "snap-" + Integer.toHexString(ids.incrementAndGet());
    snapshots.put(id, new Snap(new DiskSnapshot(id, volumeId, sizeGiB, DiskSnapshot.State.COMPLETED, Instant.now(),
        "", Map.of())));
    return id;
  }

  /** What DescribeVolumeStatus will say of the volume's initialization from now on. */
  public synchronized void initialization(String volumeId, VolumeInitialization initialization) {
    volumes.get(volumeId).initialization = initialization;
  }

  /** States stay transitional until {@link #settle()}. */
  public synchronized void holdTransitions() {
    autoSettle = false;
  }

  /** Moves every transitional state one step on: creating, attaching, detaching, modifying, optimizing, pending. */
  public synchronized void settle() {
    for (Volume v : volumes.values()) {
      if (v.disk.state() == Disk.State.CREATING) {
        v.disk = withState(v.disk, Disk.State.AVAILABLE);
      }
      v.attachments.replaceAll((instance, a) -> a.state() == Attachment.State.ATTACHING
          ? new Attachment(a.volumeId(), a.instanceId(), a.device(), Attachment.State.ATTACHED, a.attachedAt(),
              a.ebsCard()) : a);
      v.attachments.values().removeIf(a -> a.state() == Attachment.State.DETACHING);
    }
    volumes.values().removeIf(v -> v.disk.state() == Disk.State.DELETING);
    for (Snap s : snapshots.values()) {
      if (s.snapshot.state() == DiskSnapshot.State.PENDING) {
        s.snapshot = new DiskSnapshot(s.snapshot.snapshotId(), s.snapshot.volumeId(), s.snapshot.volumeSizeGiB(),
            DiskSnapshot.State.COMPLETED, s.snapshot.startedAt(), s.snapshot.outpostArn(), s.snapshot.tags());
      }
    }
    modifications.replaceAll((id, m) -> switch (m.modification().state()) {
      case MODIFYING -> {
        applyChange(id, m.change());
        yield new Modification(withState(m.modification(), VolumeModification.State.OPTIMIZING), m.change());
      }
      case OPTIMIZING -> new Modification(withState(m.modification(), VolumeModification.State.COMPLETED),
          m.change());
      default -> m;
    });
  }

  /** The next call of {@code action} fails with {@code error} (queued: several calls fail in turn). */
  public synchronized void failNext(Ec2Action action, AwsCallError error) {
    failures.computeIfAbsent(action, a -> new ArrayDeque<>()).add(error);
  }

  /** The next call of {@code action} fails with EC2's {@code code}, classified as {@link SdkEbsCloud} would. */
  public void failNext(Ec2Action action, String code) {
    failNext(action, Ec2ErrorCodes.classify(code, "injected", 400));
  }

  /** EC2 actions called so far, in order. */
  public List<Ec2Action> calls() {
    return List.copyOf(calls);
  }

  public long count(Ec2Action action) {
    return calls.stream().filter(action::equals).count();
  }

  /** The volume as EC2 would describe it now, without counting as a call or settling anything. */
  public synchronized Optional<Disk> peek(String volumeId) {
    return Optional.ofNullable(volumes.get(volumeId)).map(Volume::view);
  }

  public synchronized Optional<DiskSnapshot> peekSnapshot(String snapshotId) {
    return Optional.ofNullable(snapshots.get(snapshotId)).map(Snap::view);
  }

  public synchronized boolean locked(String snapshotId) {
    return snapshots.get(snapshotId).locked;
  }

  /** The LockSnapshot arguments the snapshot was locked with; null when it never was. */
  public synchronized SnapshotLock lock(String snapshotId) {
    return snapshots.get(snapshotId).lock;
  }

  /** The outpost CreateSnapshot was asked to store the snapshot on; "" for the region. */
  public synchronized String outpostArn(String snapshotId) {
    return snapshots.get(snapshotId).snapshot.outpostArn();
  }

  public synchronized List<String> fastRestoreZones(String snapshotId) {
    return snapshots.get(snapshotId).fastRestoreZones;
  }

  // ---- volumes

  @Override
  public synchronized Disk createDisk(DiskSpec spec, String clientToken, CallDeadline deadline) {
    Ec2Action action = spec.isCopy() ? Ec2Action.COPY_VOLUMES : Ec2Action.CREATE_VOLUME;
    enter(action);
    Token known = tokens.get(clientToken);
    if (known != null) {
      if (!known.spec().equals(spec)) {
        throw fail("IdempotentParameterMismatch", "the client token " + clientToken + " was used with other "
            + "parameters");
      }
      // EC2 answers a token it has seen with the volume it made then, whatever became of it since.
      Volume made = volumes.get(known.volumeId());
      return made != null ? made.view() : deletedDisk(known);
    }
    String zone = spec.zone();
    String outpostArn = spec.outpostArn();
    String snapshotId = spec.snapshotId();
    if (spec.isCopy()) {
      Volume source = volumes.get(spec.sourceVolumeId());
      if (source == null) {
        throw fail("InvalidVolume.NotFound", "The volume '" + spec.sourceVolumeId() + "' does not exist.");
      }
      zone = source.disk.zone();
      // CopyVolumes has no OutpostArn: a copy is where its source is.
      outpostArn = source.disk.outpostArn();
    } else {
      if (!outpostArn.isEmpty() && OutpostArn.parse(outpostArn).isEmpty()) {
        throw fail("InvalidParameterValue", "Value (" + outpostArn + ") for parameter outpostArn is invalid.");
      }
      if (zones.stream().noneMatch(z -> z.name().equals(spec.zone()))) {
        throw fail("InvalidZone.NotFound", "The zone '" + spec.zone() + "' does not exist.");
      }
      if (!snapshotId.isEmpty() && !snapshots.containsKey(snapshotId)) {
        throw fail("InvalidSnapshot.NotFound", "The snapshot '" + snapshotId + "' does not exist.");
      }
    }
    String id = "vol-" + Integer.toHexString(ids.incrementAndGet());
    String zoneName = zone;
    String zoneId = zones.stream().filter(z -> z.name().equals(zoneName)).map(Zone::id).findFirst().orElse("");
    Disk disk = new Disk(id, spec.sizeGiB(), zone, zoneId, outpostArn, spec.volumeType(), spec.iops(), spec.throughput(),
        spec.encrypted(), spec.kmsKeyId(), spec.multiAttach(), snapshotId, Disk.State.CREATING, Instant.now(),
        List.of(), spec.tags());
    Volume created = new Volume(disk);
    if (spec.isCopy() || !snapshotId.isEmpty()) {
      // EC2 estimates the time left only when the volume was created with an initialization rate (MiB/s).
      Optional<java.time.Duration> left = spec.initializationRate() > 0
          ? Optional.of(java.time.Duration.ofSeconds(spec.sizeGiB() * 1024L / spec.initializationRate()))
          : Optional.empty();
      created.initialization = new VolumeInitialization(true, java.util.OptionalInt.of(0), left);
    }
    volumes.put(id, created);
    tokens.put(clientToken, new Token(spec, id));
    return disk;
  }

  private static Disk deletedDisk(Token token) {
    DiskSpec s = token.spec();
    return new Disk(token.volumeId(), s.sizeGiB(), s.zone(), s.zoneId(), s.outpostArn(), s.volumeType(), s.iops(), s.throughput(),
        s.encrypted(), s.kmsKeyId(), s.multiAttach(), s.snapshotId(), Disk.State.DELETED, null, List.of(), s.tags());
  }

  @Override
  public synchronized Optional<Disk> disk(String volumeId, CallDeadline deadline) {
    read(Ec2Action.DESCRIBE_VOLUMES);
    return Optional.ofNullable(volumes.get(volumeId)).map(Volume::view);
  }

  @Override
  public synchronized List<Disk> disksNamed(String name, CallDeadline deadline) {
    read(Ec2Action.DESCRIBE_VOLUMES);
    return volumes.values().stream().filter(v -> name.equals(v.tags.get(VOLUME_NAME_TAG))).map(Volume::view)
        .toList();
  }

  @Override
  public synchronized ListChunk<Disk> listDisks(int maxResults, String ec2Token, CallDeadline deadline) {
    read(Ec2Action.DESCRIBE_VOLUMES);
    return page(volumes.values().stream().map(Volume::view).toList(), maxResults, ec2Token);
  }

  @Override
  public synchronized VolumeInitialization initialization(String volumeId, CallDeadline deadline) {
    read(Ec2Action.DESCRIBE_VOLUME_STATUS);
    return existing(volumeId).initialization;
  }

  @Override
  public synchronized void deleteDisk(String volumeId, CallDeadline deadline) {
    enter(Ec2Action.DELETE_VOLUME);
    Volume v = existing(volumeId);
    if (!v.attachments.isEmpty()) {
      throw fail("VolumeInUse", "Volume " + volumeId + " is currently attached to "
          + String.join(", ", v.attachments.keySet()));
    }
    if (v.disk.state() == Disk.State.CREATING) {
      throw fail("IncorrectState", "The volume '" + volumeId + "' is 'creating'");
    }
    v.disk = withState(v.disk, Disk.State.DELETING);
    if (autoSettle) {
      volumes.remove(volumeId);
    }
  }

  // ---- attachments

  @Override
  public synchronized Attachment attach(String volumeId, String instanceId, String device, OptionalInt ebsCard,
      CallDeadline deadline) {
    enter(Ec2Action.ATTACH_VOLUME);
    Volume v = existing(volumeId);
    Instance i = instances.get(instanceId);
    if (i == null || !i.state().equals("running")) {
      throw fail(i == null ? "InvalidInstanceID.NotFound" : "IncorrectInstanceState", "The instance ID '"
          + instanceId + "' does not exist or is not running");
    }
    if (!i.zone().equals(v.disk.zone())) {
      throw fail("InvalidVolume.ZoneMismatch", "The volume '" + volumeId + "' is not in the same availability zone "
          + "as instance '" + instanceId + "'");
    }
    if (v.disk.state() != Disk.State.AVAILABLE && v.disk.state() != Disk.State.IN_USE) {
      throw fail("IncorrectState", "The volume '" + volumeId + "' is not 'available'");
    }
    if (v.attachments.containsKey(instanceId) || (!v.attachments.isEmpty() && !v.disk.multiAttach())) {
      throw fail("VolumeInUse", "vol '" + volumeId + "' is already attached to an instance");
    }
    if (devicesOf(i).containsKey(device)) {
      throw fail("InvalidParameterValue", "Invalid value '" + device + "' for unixDevice. Attachment point "
          + device + " is already in use");
    }
    int cards = maximumEbsCards.getOrDefault(i.type(), 1);
    if (ebsCard.isPresent() && (ebsCard.getAsInt() < 0 || ebsCard.getAsInt() >= cards)) {
      throw fail("InvalidParameterValue", "Invalid value '" + ebsCard.getAsInt() + "' for EbsCardIndex: instance type "
          + i.type() + " has " + cards + " EBS card(s)");
    }
    Attachment a = new Attachment(volumeId, instanceId, device, Attachment.State.ATTACHING, Instant.now(),
        forcedCard.isPresent() ? forcedCard : ebsCard);
    v.attachments.put(instanceId, a);
    return a;
  }

  @Override
  public synchronized Attachment detach(String volumeId, String instanceId, CallDeadline deadline) {
    enter(Ec2Action.DETACH_VOLUME);
    Volume v = existing(volumeId);
    Attachment a = v.attachments.get(instanceId);
    if (a == null) {
      throw fail("IncorrectState", "Volume '" + volumeId + "' is in the 'available' state.");
    }
    Attachment detaching = new Attachment(volumeId, instanceId, a.device(), Attachment.State.DETACHING,
        a.attachedAt(), a.ebsCard());
    v.attachments.put(instanceId, detaching);
    return detaching;
  }

  @Override
  public synchronized Optional<Ec2Instance> instance(String instanceId, CallDeadline deadline) {
    read(Ec2Action.DESCRIBE_INSTANCES);
    return Optional.ofNullable(instances.get(instanceId))
        .map(i -> new Ec2Instance(i.id(), i.type(), i.zone(), i.state(), devicesOf(i), cardsOf(i), "/dev/xvda"));
  }

  @Override
  public synchronized OptionalInt maximumEbsCards(String instanceType, CallDeadline deadline) {
    enter(Ec2Action.DESCRIBE_INSTANCE_TYPES);
    Integer cards = maximumEbsCards.get(instanceType);
    return cards == null ? OptionalInt.empty() : OptionalInt.of(cards);
  }

  /** The card of each device that has one, as EC2's block device mapping shows it on a type with several cards. */
  private Map<String, Integer> cardsOf(Instance i) {
    Map<String, Integer> cards = new HashMap<>();
    if (maximumEbsCards.getOrDefault(i.type(), 1) > 1) {
      i.rootDevices().keySet().forEach(d -> cards.put(d, otherCards.getOrDefault(i.id() + d, 0)));
    }
    volumes.values().forEach(v -> {
      Attachment a = v.attachments.get(i.id());
      if (a != null && a.ebsCard().isPresent()) {
        cards.put(a.device(), a.ebsCard().getAsInt());
      }
    });
    return cards;
  }

  private Map<String, String> devicesOf(Instance i) {
    Map<String, String> devices = new HashMap<>(i.rootDevices());
    volumes.values().forEach(v -> {
      Attachment a = v.attachments.get(i.id());
      if (a != null) {
        devices.put(a.device(), v.disk.volumeId());
      }
    });
    return devices;
  }

  // ---- modifications and tags

  @Override
  public synchronized VolumeModification modify(String volumeId, DiskChange change, CallDeadline deadline) {
    enter(Ec2Action.MODIFY_VOLUME);
    Volume v = existing(volumeId);
    Modification last = modifications.get(volumeId);
    if (last != null && last.modification().state() == VolumeModification.State.MODIFYING) {
      throw fail("IncorrectModificationState", "A modification for volume '" + volumeId + "' is in progress");
    }
    if (change.sizeGiB() > 0 && change.sizeGiB() < v.disk.sizeGiB()) {
      throw fail("InvalidParameterValue", "New size cannot be smaller than existing size");
    }
    Disk d = v.disk;
    VolumeModification m = new VolumeModification(volumeId, VolumeModification.State.MODIFYING,
        change.sizeGiB() > 0 ? change.sizeGiB() : d.sizeGiB(),
        change.volumeType().isEmpty() ? d.volumeType() : change.volumeType(),
        change.iops() > 0 ? change.iops() : d.iops(), change.throughput() > 0 ? change.throughput() : d.throughput(),
        Instant.now(), "");
    modifications.put(volumeId, new Modification(m, change));
    return m;
  }

  @Override
  public synchronized Optional<VolumeModification> latestModification(String volumeId, CallDeadline deadline) {
    read(Ec2Action.DESCRIBE_VOLUMES_MODIFICATIONS);
    return Optional.ofNullable(modifications.get(volumeId)).map(Modification::modification);
  }

  private void applyChange(String volumeId, DiskChange c) {
    Volume v = volumes.get(volumeId);
    if (v == null) {
      return;
    }
    Disk d = v.disk;
    v.disk = new Disk(d.volumeId(), c.sizeGiB() > 0 ? c.sizeGiB() : d.sizeGiB(), d.zone(), d.zoneId(),
        d.outpostArn(),
        c.volumeType().isEmpty() ? d.volumeType() : c.volumeType(), c.iops() > 0 ? c.iops() : d.iops(),
        c.throughput() > 0 ? c.throughput() : d.throughput(), d.encrypted(), d.kmsKeyId(), d.multiAttach(),
        d.snapshotId(), d.state(), d.createdAt(), d.attachments(), d.tags());
  }

  @Override
  public synchronized void createTags(String resourceId, Map<String, String> tags, CallDeadline deadline) {
    enter(Ec2Action.CREATE_TAGS);
    tagsOf(resourceId).putAll(tags);
  }

  @Override
  public synchronized void deleteTags(String resourceId, Set<String> keys, CallDeadline deadline) {
    enter(Ec2Action.DELETE_TAGS);
    tagsOf(resourceId).keySet().removeAll(keys);
  }

  private Map<String, String> tagsOf(String resourceId) {
    if (resourceId.startsWith("snap-")) {
      return existingSnapshot(resourceId).tags;
    }
    return existing(resourceId).tags;
  }

  // ---- snapshots

  @Override
  public synchronized DiskSnapshot createSnapshot(String volumeId, String description, String outpostArn,
      Map<String, String> tags, CallDeadline deadline) {
    enter(Ec2Action.CREATE_SNAPSHOT);
    Volume v = existing(volumeId);
    String id = "snap-" + Integer.toHexString(ids.incrementAndGet());
    DiskSnapshot s = new DiskSnapshot(id, volumeId, v.disk.sizeGiB(), DiskSnapshot.State.PENDING, Instant.now(),
        outpostArn, tags);
    snapshots.put(id, new Snap(s));
    return s;
  }

  /**
   * CreateSnapshots as EC2 documents it: every volume attached to the instance (attaching or attached), less the boot
   * volume when excluded by the flag and the data volumes listed; the root volume cannot be listed. One start time for
   * all, each snapshot pending until settled.
   */
  @Override
  public synchronized List<DiskSnapshot> createSnapshots(String instanceId, boolean excludeBootVolume,
      List<String> excludeDataVolumeIds, String description, Map<String, String> tags, CallDeadline deadline) {
    enter(Ec2Action.CREATE_SNAPSHOTS);
    Instance i = instances.get(instanceId);
    if (i == null) {
      throw fail("InvalidInstanceId.NotFound", "The instance ID '" + instanceId + "' does not exist");
    }
    String root = i.rootDevices().getOrDefault("/dev/xvda", "");
    if (excludeDataVolumeIds.contains(root)) {
      throw fail("InvalidParameterValue", "The root volume " + root + " cannot be excluded as a data volume; "
          + "use ExcludeBootVolume");
    }
    Instant start = Instant.now();
    List<DiskSnapshot> taken = new ArrayList<>();
    for (Map.Entry<String, String> device : new java.util.TreeMap<>(devicesOf(i)).entrySet()) {
      String volumeId = device.getValue();
      boolean boot = device.getKey().equals("/dev/xvda");
      if ((boot && excludeBootVolume) || excludeDataVolumeIds.contains(volumeId)) {
        continue;
      }
      Volume v = volumes.get(volumeId);
      String id = "snap-" + Integer.toHexString(ids.incrementAndGet());
      DiskSnapshot s = new DiskSnapshot(id, volumeId, v == null ? 8 : v.disk.sizeGiB(), DiskSnapshot.State.PENDING,
          start, "", tags);
      snapshots.put(id, new Snap(s));
      taken.add(s);
    }
    return taken;
  }

  @Override
  public synchronized List<DiskSnapshot> snapshotsTagged(String key, String value, CallDeadline deadline) {
    read(Ec2Action.DESCRIBE_SNAPSHOTS);
    return snapshots.values().stream().filter(s -> value.equals(s.tags.get(key))).map(Snap::view).toList();
  }

  @Override
  public synchronized Optional<DiskSnapshot> snapshot(String snapshotId, CallDeadline deadline) {
    read(Ec2Action.DESCRIBE_SNAPSHOTS);
    return Optional.ofNullable(snapshots.get(snapshotId)).map(Snap::view);
  }

  @Override
  public synchronized List<DiskSnapshot> snapshotsNamed(String name, CallDeadline deadline) {
    read(Ec2Action.DESCRIBE_SNAPSHOTS);
    return snapshots.values().stream().filter(s -> name.equals(s.tags.get(SNAPSHOT_NAME_TAG))).map(Snap::view)
        .toList();
  }

  @Override
  public synchronized ListChunk<DiskSnapshot> listSnapshots(String sourceVolumeId, int maxResults, String ec2Token,
      CallDeadline deadline) {
    read(Ec2Action.DESCRIBE_SNAPSHOTS);
    List<DiskSnapshot> all = snapshots.values().stream().map(Snap::view)
        .filter(s -> sourceVolumeId.isEmpty() || s.volumeId().equals(sourceVolumeId)).toList();
    return page(all, maxResults, ec2Token);
  }

  @Override
  public synchronized void deleteSnapshot(String snapshotId, CallDeadline deadline) {
    enter(Ec2Action.DELETE_SNAPSHOT);
    Snap s = existingSnapshot(snapshotId);
    if (s.locked) {
      throw fail("SnapshotLocked", "The snapshot '" + snapshotId + "' is locked");
    }
    snapshots.remove(snapshotId);
  }

  @Override
  public synchronized void enableFastSnapshotRestores(String snapshotId, List<String> zones, CallDeadline deadline) {
    enter(Ec2Action.ENABLE_FAST_SNAPSHOT_RESTORES);
    existingSnapshot(snapshotId).fastRestoreZones = List.copyOf(zones);
  }

  @Override
  public synchronized void lockSnapshot(String snapshotId, SnapshotLock lock, CallDeadline deadline) {
    enter(Ec2Action.LOCK_SNAPSHOT);
    Snap s = existingSnapshot(snapshotId);
    s.locked = true;
    s.lock = lock;
  }

  // ---- region

  @Override
  public synchronized List<Zone> availabilityZones(CallDeadline deadline) {
    enter(Ec2Action.DESCRIBE_AVAILABILITY_ZONES);
    return zones;
  }

  @Override
  public Reachability reachability() {
    return reachability;
  }

  @Override
  public Map<String, Long> batchedLookups() {
    return Map.of();
  }

  // ---- helpers

  /** Records the call and throws the error injected for it, if any. */
  private void enter(Ec2Action action) {
    calls.add(action);
    Queue<AwsCallError> queued = failures.get(action);
    AwsCallError injected = queued == null ? null : queued.poll();
    if (injected != null) {
      throw new AwsCallException(injected);
    }
  }

  /** A Describe: settles transitions first when they are not held, as EC2 would have by the next poll. */
  private void read(Ec2Action action) {
    enter(action);
    if (autoSettle) {
      settle();
      settle();
    }
  }

  private Volume existing(String volumeId) {
    Volume v = volumes.get(volumeId);
    if (v == null || v.disk.state() == Disk.State.DELETED) {
      throw fail("InvalidVolume.NotFound", "The volume '" + volumeId + "' does not exist.");
    }
    return v;
  }

  private Snap existingSnapshot(String snapshotId) {
    Snap s = snapshots.get(snapshotId);
    if (s == null) {
      throw fail("InvalidSnapshot.NotFound", "The snapshot '" + snapshotId + "' does not exist.");
    }
    return s;
  }

  private static AwsCallException fail(String code, String message) {
    return new AwsCallException(Ec2ErrorCodes.classify(code, message, 400));
  }

  /** EC2-style paging: the token is the offset of the next item; a token this cloud never gave is refused. */
  private static <T> ListChunk<T> page(List<T> all, int maxResults, String token) {
    int from;
    try {
      from = token.isEmpty() ? 0 : Integer.parseInt(token);
    } catch (NumberFormatException e) {
      throw fail("InvalidNextToken", "The token '" + token + "' is invalid.");
    }
    if (from < 0 || from > all.size()) {
      throw fail("InvalidNextToken", "The token '" + token + "' is invalid.");
    }
    int to = Math.min(all.size(), from + Math.max(1, maxResults));
    return new ListChunk<>(all.subList(from, to), to < all.size() ? Integer.toString(to) : "");
  }

  private static Disk withState(Disk d, Disk.State state) {
    return new Disk(d.volumeId(), d.sizeGiB(), d.zone(), d.zoneId(), d.outpostArn(), d.volumeType(), d.iops(), d.throughput(),
        d.encrypted(), d.kmsKeyId(), d.multiAttach(), d.snapshotId(), state, d.createdAt(), d.attachments(), d.tags());
  }

  private static VolumeModification withState(VolumeModification m, VolumeModification.State state) {
    return new VolumeModification(m.volumeId(), state, m.targetSizeGiB(), m.targetType(), m.targetIops(),
        m.targetThroughput(), m.startedAt(), m.statusMessage());
  }

  /** Every volume the cloud holds, oldest first, without counting as a call. */
  public synchronized List<Disk> allDisks() {
    return volumes.values().stream().map(Volume::view).toList();
  }
}
