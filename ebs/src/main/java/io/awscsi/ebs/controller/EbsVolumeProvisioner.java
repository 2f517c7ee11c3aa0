package io.awscsi.ebs.controller;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.concurrent.KeyedLocks;
import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.CapabilityCheck;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeProvisioner;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.ebs.cloud.Attachment;
import io.awscsi.ebs.cloud.Disk;
import io.awscsi.ebs.cloud.DiskSnapshot;
import io.awscsi.ebs.cloud.DiskSpec;
import io.awscsi.ebs.cloud.EbsCloud;
import io.awscsi.ebs.cloud.Zone;
import io.awscsi.ebs.volume.EbsFileSystems;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * CreateVolume, DeleteVolume and ValidateVolumeCapabilities on EC2.
 *
 * <p>Idempotency holds on real EC2, not only on a fake: CreateVolume carries a ClientToken derived from the name, so a
 * repeated CreateVolume gets the volume EC2 made the first time (EC2 keeps a token for at least a day; the sidecar
 * repeats a call within minutes). The volume is looked up by its {@code CSIVolumeName} tag only when EC2 says the
 * token was used with other parameters: that is the one answer that needs to know which volume the name has. As
 * upstream, no lookup precedes the creation: under load it cost every CreateVolume a batched DescribeVolumes round
 * (up to 0.5 s) and the account a DescribeVolumes call per batch window, to find only what the token finds.
 *
 * <p>DeleteVolume sends DeleteVolume at once: EC2's InvalidVolume.NotFound means already deleted (success) and
 * VolumeInUse means still attached (FAILED_PRECONDITION, with the attachments described to name them).
 */
final class EbsVolumeProvisioner implements VolumeProvisioner {

  private static final Logger LOG = LogManager.getLogger(EbsVolumeProvisioner.class);

  /** How long a just-created volume may be missing from DescribeVolumes (eventual consistency). */
  static final Duration VISIBILITY_GRACE = Duration.ofSeconds(10);

  private final EbsCloud ec2;
  private final EbsControllerOptions options;
  private final ResourceTags tags;
  private final KeyedLocks names = new KeyedLocks();
  private final ClientTokens tokens = new ClientTokens(System::nanoTime);
  private final AdaptiveBackoff creationPolls = new AdaptiveBackoff(Duration.ofMillis(1250), Duration.ofMillis(250),
      Duration.ofSeconds(5), Duration.ofMillis(250), 1.15);

  EbsVolumeProvisioner(EbsCloud ec2, EbsControllerOptions options, ResourceTags tags) {
    this.ec2 = ec2;
    this.options = options;
    this.tags = tags;
  }

  @Override
  public boolean supportsCloning() {
    return true;
  }

  @Override
  public boolean supportsSnapshotSource() {
    return true;
  }

  @Override
  public Volume createVolume(VolumeRequest request) {
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    VolumeParameters parameters = VolumeParameters.parse(request.parameters(), request.mutableParameters(),
        request.capabilities());
    boolean multiAttach = checkCreateCapabilities(request.capabilities(), parameters.type());
    try (KeyedLocks.Held held = CallDeadlines.lock(names, request.name(), deadline, "CreateVolume " + request.name())) {
      DiskSpec spec = spec(request, parameters, multiAttach, deadline);
      Disk disk = createFresh(request, spec, deadline);
      Disk ready = awaitAvailable(disk, request.name(), deadline);
      LOG.info("CreateVolume: volume {} ready for {} ({} GiB {} in {})", ready.volumeId(), request.name(),
          ready.sizeGiB(), ready.volumeType(), ready.zone());
      return new Volume(ready.volumeId(), ready.sizeBytes(), parameters.volumeContext(),
          ZoneSelector.accessibleTopology(ready.zone(), ready.outpostArn()), request.source());
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, "CreateVolume " + request.name());
    }
  }

  private DiskSpec spec(VolumeRequest request, VolumeParameters p, boolean multiAttach, CallDeadline deadline) {
    DiskSnapshot snapshot = null;
    Disk source = null;
    switch (request.source()) {
      case VolumeSource.FromSnapshot s -> snapshot = ec2.snapshot(s.snapshotId(), deadline)
          .orElseThrow(() -> DriverException.notFound("source snapshot " + s.snapshotId() + " does not exist"));
      case VolumeSource.FromVolume v -> source = ec2.disk(v.volumeId(), deadline)
          .orElseThrow(() -> DriverException.notFound("source volume " + v.volumeId() + " does not exist"));
      case VolumeSource.Empty e -> { }
    }
    int fallback = snapshot != null ? snapshot.volumeSizeGiB() : source != null ? source.sizeGiB()
        : Math.max(VolumeSizes.DEFAULT_GIB, p.type().minGiB());
    int sizeGiB = VolumeSizes.resolve(request.capacity(), fallback, p.type());
    if (snapshot != null) {
      if (snapshot.state() != DiskSnapshot.State.COMPLETED) {
        throw DriverException.unavailable("source snapshot " + snapshot.snapshotId() + " is "
            + snapshot.state().name().toLowerCase() + ", not completed yet; CreateVolume will be retried");
      }
      if (sizeGiB < snapshot.volumeSizeGiB()) {
        throw DriverException.outOfRange("the volume must be at least as large as its source snapshot "
            + snapshot.snapshotId() + " (" + snapshot.volumeSizeGiB() + " GiB); " + sizeGiB + " GiB was requested");
      }
    }
    if (p.initializationRate() > 0 && snapshot == null) {
      throw DriverException.invalidArgument("volumeInitializationRate",
          "only applies to volumes restored from a snapshot");
    }
    List<Zone> zones = ec2.availabilityZones(deadline);
    if (zones.isEmpty()) {
      throw DriverException.unavailable("EC2 reported no available zone in the region; CreateVolume will be retried");
    }
    String zone;
    String outpostArn;
    if (source != null) {
      if (sizeGiB < source.sizeGiB()) {
        throw DriverException.outOfRange("a clone must be at least as large as its source volume "
            + source.volumeId() + " (" + source.sizeGiB() + " GiB); " + sizeGiB + " GiB was requested");
      }
      if (!p.kmsKeyId().isEmpty() && !p.kmsKeyId().equals(source.kmsKeyId())) {
        throw DriverException.invalidArgument("kmsKeyId", "a clone keeps its source's KMS key ("
            + (source.kmsKeyId().isEmpty() ? "none" : source.kmsKeyId()) + "); remove kmsKeyId from the class");
      }
      if (!ZoneSelector.allowsSource(request.topology(), zones, source.zone(), source.outpostArn())) {
        throw DriverException.resourceExhausted("clone source " + source.volumeId() + " is in " + source.zone()
            + (source.outpostArn().isEmpty() ? "" : " on Outpost " + source.outpostArn())
            + ", which the accessibility requirements exclude; EBS clones stay in their source's zone and Outpost");
      }
      zone = source.zone();
      // As upstream: a clone is where its source is (CopyVolumes takes no OutpostArn).
      outpostArn = source.outpostArn();
    } else {
      // Checked against the region's zones before anything is created: a volume never goes to an unknown zone.
      zone = ZoneSelector.pick(request.topology(), zones).name();
      outpostArn = OutpostPlacement.pick(request.topology()).map(Object::toString).orElse("");
    }
    int iops = p.iopsFor(sizeGiB);
    Map<String, String> volumeTags = tags.forVolume(request.name(), tags.userTags(p.tagSpecifications(),
        p.templateFields()), p.createdForTags(), p.driverTags());
    return new DiskSpec(sizeGiB, p.type().ec2Name(), iops, p.throughput(), p.encrypted(), p.kmsKeyId(), zone, "",
        outpostArn, snapshot == null ? "" : snapshot.snapshotId(), source == null ? "" : source.volumeId(),
        multiAttach, p.initializationRate(), volumeTags);
  }

  /** The volume already made under this name, if any (the oldest, should a past bug have made two). */
  private Optional<Disk> findByName(String name, CallDeadline deadline) {
    List<Disk> named = ec2.disksNamed(name, deadline).stream()
        .filter(d -> d.state() != Disk.State.DELETING && d.state() != Disk.State.DELETED
            && d.state() != Disk.State.ERROR)
        .sorted(Comparator.comparing(d -> d.createdAt() == null ? Instant.EPOCH : d.createdAt()))
        .toList();
    if (named.size() > 1) {
      LOG.warn("CreateVolume: {} volumes carry CSIVolumeName={}: {}; using the oldest", named.size(), name,
          named.stream().map(Disk::volumeId).toList());
    }
    return named.stream().findFirst();
  }

  private Disk requireCompatible(Disk existing, DiskSpec wanted, VolumeRequest request, List<Zone> zones) {
    String name = request.name();
    List<String> differences = new ArrayList<>();
    if (existing.sizeGiB() != wanted.sizeGiB()) {
      differences.add("size " + existing.sizeGiB() + " GiB (requested " + wanted.sizeGiB() + " GiB)");
    }
    if (!existing.volumeType().equals(wanted.volumeType())) {
      differences.add("type " + existing.volumeType() + " (requested " + wanted.volumeType() + ")");
    }
    if (wanted.iops() > 0 && existing.iops() != wanted.iops()) {
      differences.add("iops " + existing.iops() + " (requested " + wanted.iops() + ")");
    }
    if (wanted.throughput() > 0 && existing.throughput() != wanted.throughput()) {
      differences.add("throughput " + existing.throughput() + " (requested " + wanted.throughput() + ")");
    }
    if (existing.encrypted() != wanted.encrypted() && wanted.encrypted()) {
      differences.add("not encrypted (requested encrypted)");
    }
    if (!wanted.snapshotId().isEmpty() && !existing.snapshotId().equals(wanted.snapshotId())) {
      differences.add("source snapshot " + (existing.snapshotId().isEmpty() ? "none" : existing.snapshotId())
          + " (requested " + wanted.snapshotId() + ")");
    }
    // Compatible means accessible from the requirements (CSI): any zone the requisite allows, not only the pick.
    boolean zoneFits = wanted.isCopy() ? existing.zone().equals(wanted.zone())
        : ZoneSelector.allows(request.topology(), zones, existing.zone());
    if (!zoneFits) {
      differences.add("zone " + existing.zone() + " (requested " + wanted.zone() + ")");
    }
    if (!existing.outpostArn().equals(wanted.outpostArn())) {
      differences.add((existing.outpostArn().isEmpty() ? "in the region" : "on Outpost " + existing.outpostArn())
          + " (requested " + (wanted.outpostArn().isEmpty() ? "the region" : "Outpost " + wanted.outpostArn())
          + ")");
    }
    if (!differences.isEmpty()) {
      throw DriverException.alreadyExists("volume " + existing.volumeId() + " already exists under the name " + name
          + " with other properties: " + String.join(", ", differences)
          + "; use another name or delete that volume");
    }
    LOG.info("CreateVolume: {} already exists as {}; returning it", name, existing.volumeId());
    return existing;
  }

  /**
   * Creates the volume. EC2 answers a ClientToken it has seen with the volume it made then, even if that volume was
   * deleted since (a name reused after DeleteVolume): such an answer is checked, and the name moves to its next token.
   * A token used with other parameters is answered by the name's existing volume when there is one (compatible, or
   * ALREADY_EXISTS); otherwise it belonged to a failed creation and the name moves to its next token.
   */
  private Disk createFresh(VolumeRequest request, DiskSpec spec, CallDeadline deadline) {
    String name = request.name();
    // At most: a token used with other parameters, then one that names a deleted volume, then a fresh one.
    for (int attempt = 0; attempt < 3; attempt++) {
      Optional<Disk> made = create(request, spec, deadline);
      if (made.isEmpty()) {
        continue;
      }
      if (made.get().state() == Disk.State.CREATING) {
        return made.get();
      }
      Optional<Disk> now = ec2.disk(made.get().volumeId(), deadline);
      if (now.isPresent() && (now.get().state() == Disk.State.AVAILABLE || now.get().state() == Disk.State.IN_USE
          || now.get().state() == Disk.State.CREATING)) {
        return now.get();
      }
      LOG.info("CreateVolume: the ClientToken of {} names volume {}, which is gone; using the next token", name,
          made.get().volumeId());
      tokens.advance(name);
    }
    throw DriverException.unavailable("CreateVolume " + name + ": EC2 keeps answering with deleted volumes; "
        + "the retry uses a fresh ClientToken");
  }

  /**
   * One CreateVolume with the name's token. Empty when the token turned out to belong to a failed creation (the name
   * has moved to its next token); the name's existing volume when the token was used with other parameters.
   */
  private Optional<Disk> create(VolumeRequest request, DiskSpec spec, CallDeadline deadline) {
    String name = request.name();
    try {
      return Optional.of(ec2.createDisk(spec, tokens.tokenFor(name), deadline));
    } catch (AwsCallException e) {
      if (e.error() instanceof AwsCallError.IdempotentParameterMismatch) {
        Optional<Disk> existing = findByName(name, deadline);
        if (existing.isPresent()) {
          return Optional.of(requireCompatible(existing.get(), spec, request, ec2.availabilityZones(deadline)));
        }
        // The name's token belongs to an earlier, failed creation with other parameters: move to the next one.
        LOG.info("CreateVolume: ClientToken of {} was used with other parameters and no volume has the name; "
            + "using the next token", name);
        tokens.advance(name);
        return Optional.empty();
      }
      if (e.error() instanceof AwsCallError.NotFound nf && spec.isCopy()) {
        throw DriverException.notFound("source volume " + spec.sourceVolumeId() + " does not exist: "
            + nf.message());
      }
      if (e.error() instanceof AwsCallError.NotFound nf && !spec.snapshotId().isEmpty()) {
        throw DriverException.notFound("source snapshot " + spec.snapshotId() + " does not exist: " + nf.message());
      }
      throw e;
    }
  }

  private Disk awaitAvailable(Disk disk, String name, CallDeadline deadline) {
    if (disk.state() == Disk.State.AVAILABLE || disk.state() == Disk.State.IN_USE) {
      return disk;
    }
    Instant since = Instant.now();
    String what = "waiting for volume " + disk.volumeId() + " (" + name + ") to become available";
    return StatePoller.await(creationPolls, deadline, since, what, () -> {
      Optional<Disk> now = ec2.disk(disk.volumeId(), deadline);
      if (now.isEmpty()) {
        if (Duration.between(since, Instant.now()).compareTo(VISIBILITY_GRACE) > 0) {
          throw creationFailed(name, disk.volumeId(), "it disappeared", deadline, false);
        }
        return Optional.empty();
      }
      return switch (now.get().state()) {
        case AVAILABLE, IN_USE -> now;
        case CREATING -> Optional.empty();
        case ERROR -> throw creationFailed(name, disk.volumeId(), "EC2 reports state error", deadline, true);
        case DELETING, DELETED -> throw creationFailed(name, disk.volumeId(), "it is being deleted", deadline, false);
      };
    });
  }

  /** A volume that failed asynchronously: delete what is left and use a fresh ClientToken for the retry. */
  private DriverException creationFailed(String name, String volumeId, String why, CallDeadline deadline,
      boolean delete) {
    tokens.advance(name);
    if (delete) {
      try {
        ec2.deleteDisk(volumeId, deadline);
      } catch (AwsCallException e) {
        LOG.warn("CreateVolume: could not delete failed volume {}: {}", volumeId, e.getMessage());
      }
    }
    return DriverException.unavailable("volume " + volumeId + " for " + name + " failed during creation (" + why
        + "; e.g. an unusable KMS key or no capacity in the zone); the retry creates a new volume");
  }

  /** Multi-attach is requested by MULTI_NODE_MULTI_WRITER with block access, and only io2 has it. */
  private static boolean checkCreateCapabilities(List<VolumeCapability> capabilities, VolumeType type) {
    boolean multiAttach = false;
    for (int i = 0; i < capabilities.size(); i++) {
      VolumeCapability c = capabilities.get(i);
      String problem = unsupported(c);
      if (problem != null) {
        throw DriverException.invalidArgument("volume_capabilities[" + i + "]", problem);
      }

      multiAttach |= c.accessMode() == AccessMode.MULTI_NODE_MULTI_WRITER;
    }
    if (multiAttach && !type.multiAttach()) {
      throw DriverException.invalidArgument("volume_capabilities", "MULTI_NODE_MULTI_WRITER needs multi-attach, "
          + "which the driver offers for io2 only; the class asks for " + type.ec2Name());
    }
    return multiAttach;
  }

  /** Why EBS cannot serve this capability, or null: as upstream, SINGLE_NODE_WRITER, or MULTI_NODE_MULTI_WRITER
   * with block access. */
  static String unsupported(VolumeCapability c) {
    // A volume the node would refuse to stage is refused before EC2 makes it.
    if (!c.isBlock() && EbsFileSystems.normalize(c.fsType()).isEmpty()) {
      return "mount.fs_type \"" + c.fsType() + "\" is not supported by EBS volumes; " + EbsFileSystems.supportedList();
    }
    return switch (c.accessMode()) {
      case SINGLE_NODE_WRITER -> null;
      case MULTI_NODE_MULTI_WRITER -> c.isBlock() ? null
          : "MULTI_NODE_MULTI_WRITER is only supported for block volumes (io2 multi-attach)";
      default -> "access mode " + c.accessMode() + " is not supported by EBS; use SINGLE_NODE_WRITER, or "
          + "MULTI_NODE_MULTI_WRITER with block access on io2";
    };
  }

  @Override
  public void deleteVolume(String volumeId, Map<String, String> secrets) {
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    try {
      ec2.deleteDisk(volumeId, deadline);
      LOG.info("DeleteVolume: deleted {}", volumeId);
    } catch (AwsCallException e) {
      switch (e.error()) {
        case AwsCallError.NotFound nf -> LOG.info("DeleteVolume: {} is already gone ({})", volumeId, nf.message());
        case AwsCallError.VolumeInUse inUse -> refuseOrAccept(volumeId, inUse, deadline, e);
        default -> throw Ec2Failures.toDriver(e, "DeleteVolume " + volumeId);
      }
    }
  }

  /**
   * EC2 refused DeleteVolume because of the volume's state: still attached is FAILED_PRECONDITION naming the
   * attachments; being deleted already is success; any other state (still creating) is retried.
   */
  private void refuseOrAccept(String volumeId, AwsCallError.VolumeInUse inUse, CallDeadline deadline,
      AwsCallException cause) {
    Optional<Disk> disk;
    try {
      disk = ec2.disk(volumeId, deadline);
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, "DeleteVolume " + volumeId + " (" + inUse.message() + ")");
    }
    if (disk.isEmpty() || disk.get().state() == Disk.State.DELETING || disk.get().state() == Disk.State.DELETED) {
      LOG.info("DeleteVolume: {} is already being deleted ({})", volumeId, inUse.message());
      return;
    }
    List<Attachment> attached = disk.get().activeAttachments();
    if (attached.isEmpty()) {
      throw new DriverException(new DriverError.Unavailable("DeleteVolume " + volumeId + ": " + inUse.message()
          + " (volume " + disk.get().state().name().toLowerCase() + "); it will be retried"), cause);
    }
    throw new DriverException(new DriverError.FailedPrecondition("volume " + volumeId
        + " is still published to a node: unpublish it before DeleteVolume (attached to "
        + attached.stream().map(a -> a.instanceId() + " as " + a.device() + ", " + a.state().name()
            .toLowerCase()).collect(Collectors.joining("; ")) + "): " + inUse.message()
        + "; unpublish it before DeleteVolume"), cause);
  }

  @Override
  public CapabilityCheck validateCapabilities(String volumeId, List<VolumeCapability> capabilities,
      Map<String, String> volumeContext, Map<String, String> parameters) {
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    Disk disk;
    try {
      disk = ec2.disk(volumeId, deadline)
          .orElseThrow(() -> DriverException.notFound("volume " + volumeId + " does not exist"));
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, "ValidateVolumeCapabilities " + volumeId);
    }
    for (VolumeCapability c : capabilities) {
      String problem = unsupported(c);
      if (problem == null && c.accessMode() == AccessMode.MULTI_NODE_MULTI_WRITER && !disk.multiAttach()) {
        problem = "volume " + volumeId + " was not created with multi-attach, so it cannot be MULTI_NODE_MULTI_WRITER";
      }
      if (problem != null) {
        return new CapabilityCheck.Unsupported(problem);
      }
    }
    return new CapabilityCheck.Confirmed();
  }
}
