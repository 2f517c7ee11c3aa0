package io.awscsi.ebs.controller;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.ExpandRequest;
import io.awscsi.core.provider.ExpandResult;
import io.awscsi.core.provider.ModifyRequest;
import io.awscsi.core.provider.VolumeExpander;
import io.awscsi.core.provider.VolumeModifier;
import io.awscsi.ebs.cloud.Disk;
import io.awscsi.ebs.cloud.DiskChange;
import io.awscsi.ebs.cloud.EbsCloud;
import io.awscsi.ebs.cloud.VolumeModification;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * ControllerExpandVolume and ControllerModifyVolume, both through one {@link ModifyVolumeCoalescer}: requests for a
 * volume that arrive together cost one EC2 ModifyVolume. Tag-only changes touch tags only. A change is done when
 * its modification reaches {@code optimizing} (the new size and performance are usable) or {@code completed}.
 */
final class EbsVolumeResizer implements VolumeExpander, VolumeModifier {

  private static final Logger LOG = LogManager.getLogger(EbsVolumeResizer.class);

  private final EbsCloud ec2;
  private final EbsControllerOptions options;
  private final ResourceTags tags;
  private final ModifyVolumeCoalescer coalescer;
  private final AdaptiveBackoff modificationPolls = new AdaptiveBackoff(Duration.ofSeconds(1), Duration.ofMillis(250),
      Duration.ofSeconds(5), Duration.ofMillis(500), 1.2);

  EbsVolumeResizer(EbsCloud ec2, EbsControllerOptions options, ResourceTags tags) {
    this.ec2 = ec2;
    this.options = options;
    this.tags = tags;
    this.coalescer = new ModifyVolumeCoalescer(options.modifyVolumeRequestHandlerTimeout(), this::apply);
  }

  @Override
  public ExpandResult expand(ExpandRequest request) {
    String volumeId = request.volumeId();
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    Disk disk = describe(volumeId, deadline, "ControllerExpandVolume");
    int wanted = VolumeSizes.forExpand(request.capacity(), disk.sizeGiB(), VolumeType.fromEc2(disk.volumeType()),
        volumeId);
    boolean nodeExpansion = request.capability() == null || !request.capability().isBlock();
    int size = coalescer.submit(volumeId, VolumeChange.size(wanted), deadline);
    return new ExpandResult(size * VolumeSizes.GIB, nodeExpansion);
  }

  @Override
  public void modify(ModifyRequest request) {
    String volumeId = request.volumeId();
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    Disk disk = describe(volumeId, deadline, "ControllerModifyVolume");
    coalescer.submit(volumeId, parse(request.mutableParameters(), disk), deadline);
  }

  /**
   * Every VolumeAttributesClass key ControllerModifyVolume accepts, spelt as upstream documents it (matched
   * case-insensitively); {@code tagSpecification_N} and {@code tagDeletion_N} stand for every key with that prefix,
   * the {@code csi.storage.k8s.io/} keys are the external-resizer's {@code --extra-modify-metadata}. Any other key is
   * refused before {@link #parse} reads it (docs/parameter-effects.json must name a test for each).
   */
  static final Set<String> MUTABLE_KEYS = Set.of("type", "volumeType", "iops", "iopsPerGB", "throughput",
      "allowAutoIOPSIncreaseOnModify", VolumeParameters.PVC_NAME, VolumeParameters.PVC_NAMESPACE,
      VolumeParameters.PV_NAME, "tagSpecification_N", "tagDeletion_N");

  private static final Set<String> MUTABLE_KEYS_LOWER = MUTABLE_KEYS.stream().map(k -> k.toLowerCase(Locale.ROOT))
      .collect(java.util.stream.Collectors.toUnmodifiableSet());

  private static DriverException unknownMutableKey(String key) {
    return DriverException.invalidArgument(key, "unknown mutable parameter \"" + key + "\"; allowed: type, "
        + "iops, iopsPerGB, throughput, allowAutoIOPSIncreaseOnModify, tagSpecification_N, tagDeletion_N");
  }

  /** The VolumeAttributesClass parameters as a change of {@code disk}; unknown keys are InvalidArgument. */
  VolumeChange parse(Map<String, String> parameters, Disk disk) {
    String type = "";
    int iops = 0;
    int iopsPerGiB = 0;
    int throughput = 0;
    Map<String, String> add = new LinkedHashMap<>();
    Map<String, String> specs = new TreeMap<>();
    Set<String> remove = new java.util.HashSet<>();
    Map<String, String> fields = new java.util.HashMap<>(Map.of("PVCName", "", "PVCNamespace", "", "PVName", ""));
    for (Map.Entry<String, String> e : parameters.entrySet()) {
      String key = e.getKey();
      String lower = key.toLowerCase(Locale.ROOT);
      if (!MUTABLE_KEYS_LOWER.contains(lower) && !lower.startsWith(ResourceTags.TAG_SPECIFICATION_PREFIX)
          && !lower.startsWith(ResourceTags.TAG_DELETION_PREFIX)) {
        throw unknownMutableKey(key);
      }
      switch (lower) {
        case "type", "volumetype" -> type = VolumeType.parse(key, e.getValue()).ec2Name();
        case "iops" -> iops = VolumeParameters.positive(key, e.getValue());
        case "iopspergb" -> iopsPerGiB = VolumeParameters.positive(key, e.getValue());
        case "throughput" -> throughput = VolumeParameters.positive(key, e.getValue());
        case "allowautoiopsincreaseonmodify" -> {
          if (VolumeParameters.isTrue(key, e.getValue())) {
            add.put(ResourceTags.AUTO_IOPS_ON_MODIFY_TAG, "true");
          } else {
            remove.add(ResourceTags.AUTO_IOPS_ON_MODIFY_TAG);
          }
        }
        case VolumeParameters.PVC_NAME -> fields.put("PVCName", e.getValue());
        case VolumeParameters.PVC_NAMESPACE -> fields.put("PVCNamespace", e.getValue());
        case VolumeParameters.PV_NAME -> fields.put("PVName", e.getValue());
        default -> {
          if (lower.startsWith(ResourceTags.TAG_SPECIFICATION_PREFIX)) {
            specs.put(key, e.getValue());
          } else if (lower.startsWith(ResourceTags.TAG_DELETION_PREFIX)) {
            String tagKey = e.getValue().trim();
            String reason = ResourceTags.reservedReason(tagKey);
            if (reason != null) {
              throw DriverException.invalidArgument(key, "cannot delete tag " + tagKey + ": " + reason);
            }
            remove.add(tagKey);
          } else {
            throw unknownMutableKey(key);
          }
        }
      }
    }
    add.putAll(tags.userTags(specs, fields));
    // A VolumeAttributesClass adds to the tags the volume has: at least these must fit EC2's limits on their own.
    ResourceTags.withinLimits(add);
    if (iops > 0 && iopsPerGiB > 0) {
      throw DriverException.invalidArgument("iopsPerGB", "iops and iopsPerGB cannot both be set; choose one");
    }
    VolumeType target = !type.isEmpty() ? VolumeType.parse("type", type) : VolumeType.fromEc2(disk.volumeType());
    if (!type.isEmpty() && !type.equals(disk.volumeType())) {
      target.checkSize("type", disk.volumeId(), disk.sizeGiB());
    }
    if (target != null) {
      if (iopsPerGiB > 0) {
        iops = target.iopsFromRatio(iopsPerGiB, disk.sizeGiB(), false);
        add.put(ResourceTags.IOPS_PER_GB_TAG, Integer.toString(iopsPerGiB));
      } else if (iops > 0) {
        // The size may grow in the same merged change: EC2 checks the IOPS-per-GiB ratio against the final size.
        target.checkIops("iops", iops);
      }
      if (throughput > 0) {
        target.checkThroughput("throughput", throughput);
      }
    }
    return new VolumeChange(0, type, iops, throughput, add, remove);
  }

  /** Runs one merged change (called by the coalescer after its window). */
  private int apply(String volumeId, VolumeChange change, CallDeadline deadline) {
    try {
      if (!change.removeTags().isEmpty()) {
        ec2.deleteTags(volumeId, change.removeTags(), deadline);
      }
      if (!change.addTags().isEmpty()) {
        ec2.createTags(volumeId, change.addTags(), deadline);
      }
      Disk disk = describe(volumeId, deadline, "modifying");
      if (!change.touchesVolume()) {
        return disk.sizeGiB();
      }
      DiskChange target = target(disk, change);
      Optional<VolumeModification> latest = ec2.latestModification(volumeId, deadline);
      if (latest.isPresent() && !latest.get().state().usable()
          && latest.get().state() != VolumeModification.State.FAILED) {
        if (reaches(latest.get(), disk, target)) {
          return awaitUsable(volumeId, deadline, Instant.now());
        }
        throw DriverException.unavailable("volume " + volumeId + " is still being modified (state "
            + latest.get().state().name().toLowerCase() + "); this change will be retried after it");
      }
      if (target.isEmpty()) {
        LOG.info("Volume {} already has the requested size and attributes", volumeId);
        return disk.sizeGiB();
      }
      Instant since = Instant.now();
      try {
        ec2.modify(volumeId, target, deadline);
      } catch (AwsCallException e) {
        if (e.error() instanceof AwsCallError.InvalidRequest p) {
          throw DriverException.invalidArgument("parameters", "EC2 refused to modify " + volumeId + ": "
              + p.message());
        }
        throw e;
      }
      LOG.info("ModifyVolume {}: {}", volumeId, target);
      int size = awaitUsable(volumeId, deadline, since);
      return size;
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, "modifying volume " + volumeId);
    }
  }

  /** The ModifyVolume arguments still needed to get from {@code disk} to {@code change}. */
  private static DiskChange target(Disk disk, VolumeChange change) {
    int size = change.sizeGiB() > disk.sizeGiB() ? change.sizeGiB() : 0;
    String type = !change.volumeType().isEmpty() && !change.volumeType().equals(disk.volumeType())
        ? change.volumeType() : "";
    int iops = change.iops() > 0 && change.iops() != disk.iops() ? change.iops() : 0;
    int throughput = change.throughput() > 0 && change.throughput() != disk.throughput() ? change.throughput() : 0;
    // Upstream's allowAutoIOPSIncreaseOnModify: keep the IOPS-per-GiB ratio when the volume grows.
    if (size > 0 && iops == 0 && disk.tag(ResourceTags.AUTO_IOPS_ON_MODIFY_TAG).equals("true")
        && !disk.tag(ResourceTags.IOPS_PER_GB_TAG).isEmpty()) {
      VolumeType t = VolumeType.fromEc2(type.isEmpty() ? disk.volumeType() : type);
      try {
        int ratio = Integer.parseInt(disk.tag(ResourceTags.IOPS_PER_GB_TAG));
        int scaled = t == null ? 0 : t.iopsFromRatio(ratio, size, true);
        iops = scaled > disk.iops() ? scaled : 0;
      } catch (NumberFormatException e) {
        LOG.warn("Volume {} has an unreadable {} tag; IOPS left as they are", disk.volumeId(),
            ResourceTags.IOPS_PER_GB_TAG);
      }
    }
    return new DiskChange(size, type, iops, throughput);
  }

  /** Whether an unfinished modification already heads for everything {@code target} asks. */
  private static boolean reaches(VolumeModification m, Disk disk, DiskChange target) {
    return (target.sizeGiB() == 0 || m.targetSizeGiB() >= target.sizeGiB() || disk.sizeGiB() >= target.sizeGiB())
        && (target.volumeType().isEmpty() || target.volumeType().equals(m.targetType()))
        && (target.iops() == 0 || target.iops() == m.targetIops())
        && (target.throughput() == 0 || target.throughput() == m.targetThroughput());
  }

  private int awaitUsable(String volumeId, CallDeadline deadline, Instant since) {
    String what = "waiting for the modification of " + volumeId + " to reach optimizing";
    VolumeModification done = StatePoller.await(modificationPolls, deadline, since, what, () -> {
      Optional<VolumeModification> m = ec2.latestModification(volumeId, deadline);
      if (m.isEmpty()) {
        return Optional.empty();
      }
      if (m.get().state() == VolumeModification.State.FAILED) {
        throw DriverException.internal("EC2 could not modify volume " + volumeId + ": " + m.get().statusMessage());
      }
      return m.get().state().usable() ? m : Optional.empty();
    });
    return done.targetSizeGiB() > 0 ? done.targetSizeGiB() : describe(volumeId, deadline, "modified").sizeGiB();
  }

  private Disk describe(String volumeId, CallDeadline deadline, String doing) {
    try {
      return ec2.disk(volumeId, deadline)
          .orElseThrow(() -> DriverException.notFound(doing + ": volume " + volumeId + " does not exist"));
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, doing + " " + volumeId);
    }
  }
}
