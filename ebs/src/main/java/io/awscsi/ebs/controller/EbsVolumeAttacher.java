package io.awscsi.ebs.controller;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.concurrent.KeyedLocks;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.PublishRequest;
import io.awscsi.core.provider.VolumeAttacher;
import io.awscsi.ebs.cloud.Attachment;
import io.awscsi.ebs.cloud.Disk;
import io.awscsi.ebs.cloud.EbsCloud;
import io.awscsi.ebs.volume.PublishContextKeys;
import io.awscsi.ebs.cloud.Ec2Instance;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * ControllerPublishVolume / ControllerUnpublishVolume: EC2 AttachVolume / DetachVolume, waiting for the final state.
 * The decision to attach (is the volume free, which device name) is taken under a per-volume lock and remembered
 * until EC2 shows the attachment, so two publishes of one volume to two nodes cannot both attach it.
 */
final class EbsVolumeAttacher implements VolumeAttacher {

  private static final Logger LOG = LogManager.getLogger(EbsVolumeAttacher.class);
  private static final int DEVICE_NAME_ATTEMPTS = 3;
  private static final Executor LOOKUPS = Executors.newVirtualThreadPerTaskExecutor();

  private final EbsCloud ec2;
  private final EbsControllerOptions options;
  private final DeviceNameAllocator devices = new DeviceNameAllocator();
  private final VolumeAttachmentWaiter waiter;
  private final KeyedLocks volumes = new KeyedLocks();
  /** Attachments sent to EC2 and not yet seen attached: volume id -> instance ids. */
  private final Map<String, Set<String>> inProgress = new ConcurrentHashMap<>();
  /** The instance type of each node whose instance was described (a node's type never changes). */
  private final Map<String, String> instanceTypes = new ConcurrentHashMap<>();
  private final EbsCardCounts cards;

  private final VolumeInitializationGate initializations;

  private final DetachPendingTracker detachPending;

  EbsVolumeAttacher(EbsCloud ec2, EbsControllerOptions options, MetricsRegistry metrics) {
    this(ec2, options, InstantSource.system(), metrics);
  }

  /**
   * {@code clock} times the checks of initializing volumes and the pending detaches (the tests move it); the
   * pending detaches are reported in {@code metrics}.
   */
  EbsVolumeAttacher(EbsCloud ec2, EbsControllerOptions options, InstantSource clock, MetricsRegistry metrics) {
    this.ec2 = ec2;
    this.options = options;
    this.detachPending = new DetachPendingTracker(clock);
    this.detachPending.register(metrics);
    this.waiter = new VolumeAttachmentWaiter(ec2, options.stuckAttachingTimeout(), detachPending);
    this.initializations = new VolumeInitializationGate(ec2, clock);
    this.cards = new EbsCardCounts(ec2, clock);
  }

  /** {@code card}: the EBS card AttachVolume named, which the attachment must show (empty: none named). */
  private record Started(String device, Instant since, boolean reserved, OptionalInt card) {}

  @Override
  public Map<String, String> publish(PublishRequest request) {
    String volumeId = request.volumeId();
    String nodeId = request.nodeId();
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    String problem = EbsVolumeProvisioner.unsupported(request.capability());
    if (problem != null) {
      throw DriverException.invalidArgument("volume_capability", problem);
    }
    boolean multiWriter = request.capability().accessMode() == AccessMode.MULTI_NODE_MULTI_WRITER;
    // Wanted on the node again: a detach still pending there is no longer expected.
    detachPending.forget(volumeId, nodeId);
    Started started;
    try (KeyedLocks.Held held = CallDeadlines.lock(volumes, volumeId, deadline, "ControllerPublishVolume " + volumeId)) {
      started = startAttach(volumeId, nodeId, multiWriter, deadline);
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, "ControllerPublishVolume " + volumeId + " to " + nodeId);
    }
    Attachment attached;
    try {
      attached = waiter.awaitAttached(volumeId, nodeId, started.since(), started.card(), deadline);
      LOG.info("ControllerPublishVolume: {} attached to {} as {}", volumeId, nodeId, attached.device());
    } catch (DriverException e) {
      if (started.reserved()) {
        devices.failed(nodeId, started.device());
      }
      throw e;
    } finally {
      inProgress.computeIfPresent(volumeId, (v, nodes) -> {
        nodes.remove(nodeId);
        return nodes.isEmpty() ? null : nodes;
      });
    }
    // After the attach, as upstream: the retry of a publish that ran out of time finds the attachment and only
    // asks whether the initialization has finished.
    if ("true".equals(request.volumeContext().get(VolumeContextKeys.BLOCK_ATTACH_UNTIL_INITIALIZED))) {
      initializations.awaitInitialized(volumeId, nodeId, deadline);
    }
    return Map.of(PublishContextKeys.DEVICE_PATH, attached.device());
  }

  /** Decides under the volume's lock; sends AttachVolume unless the volume is already (being) attached here. */
  private Started startAttach(String volumeId, String nodeId, boolean multiWriter, CallDeadline deadline) {
    // The instance's device names are known from earlier attaches; when they must be learned, both lookups are
    // batched, and asking for the instance alongside the volume saves one batch round.
    CompletableFuture<Optional<Ec2Instance>> instanceLookup = devices.needsMapping(nodeId)
        ? lookUpInstance(nodeId, deadline) : null;
    Disk disk = ec2.disk(volumeId, deadline)
        .orElseThrow(() -> DriverException.notFound("volume " + volumeId + " does not exist"));
    Optional<Attachment> mine = disk.attachmentTo(nodeId);
    if (mine.isPresent()) {
      Attachment a = mine.get();
      if (a.state() == Attachment.State.ATTACHED || a.state() == Attachment.State.ATTACHING) {
        Instant since = a.attachedAt() != null ? a.attachedAt() : Instant.now();
        devices.attached(nodeId, a.device());
        return new Started(a.device(), since, false, OptionalInt.empty());
      }
      throw DriverException.unavailable("volume " + volumeId + " is " + a.state().name().toLowerCase() + " from "
          + nodeId + "; ControllerPublishVolume will be retried when the detach has finished");
    }
    Set<String> elsewhere = new HashSet<>();
    disk.activeAttachments().forEach(a -> elsewhere.add(a.instanceId()));
    elsewhere.addAll(inProgress.getOrDefault(volumeId, Set.of()));
    elsewhere.remove(nodeId);
    if (!elsewhere.isEmpty() && !(multiWriter && disk.multiAttach())) {
      throw attachedElsewhere(volumeId, elsewhere);
    }
    if (instanceLookup != null) {
      join(instanceLookup);
    } else if (!instanceTypes.containsKey(nodeId)) {
      join(lookUpInstance(nodeId, deadline));
    }
    int cardCount = cards.cardsOf(instanceTypes.get(nodeId), deadline);
    Set<String> refused = new HashSet<>();
    for (int attempt = 1; ; attempt++) {
      String device = devices.allocate(nodeId, refused).orElseThrow(() -> DriverException.resourceExhausted(
          "instance " + nodeId + " has no free device name left (" + DeviceNameAllocator.NAMES.size()
              + " in use or reserved); detach volumes from it or schedule elsewhere"));
      boolean mayRetry = attempt < DEVICE_NAME_ATTEMPTS;
      OptionalInt card = devices.chooseCard(nodeId, device, cardCount);
      try {
        ec2.attach(volumeId, nodeId, device, card, deadline);
        // The attach starts when EC2 accepts it, not when the call began waiting for a token: the polls learn how
        // long EC2 takes (AdaptiveBackoff), which the wait for the rate limit must not inflate.
        Instant since = Instant.now();
        devices.attached(nodeId, device);
        inProgress.computeIfAbsent(volumeId, v -> ConcurrentHashMap.newKeySet()).add(nodeId);
        return new Started(device, since, true, card);
      } catch (AwsCallException e) {
        switch (e.error()) {
          case AwsCallError.DeviceNameInUse d when mayRetry -> {
            // Someone else's attachment: learn the instance's mapping again before the next name.
            LOG.info("AttachVolume {} to {}: device {} is in use on the instance; describing the instance and "
                + "trying another", volumeId, nodeId, device);
            devices.failed(nodeId, device);
            refused.add(device);
            devices.refuted(nodeId);
            join(lookUpInstance(nodeId, deadline));
          }
          case AwsCallError.DeviceNameInUse d -> {
            devices.failed(nodeId, device);
            devices.refuted(nodeId);
            throw e;
          }
          case AwsCallError.AttachmentLimitExceeded limit -> {
            devices.release(nodeId, device);
            devices.refuted(nodeId);
            throw DriverException.resourceExhausted("instance " + nodeId + " cannot take another volume ("
                + limit.message() + "); volume " + volumeId + " must go to another node");
          }
          case AwsCallError.VolumeInUse inUseError -> {
            devices.release(nodeId, device);
            throw raceLost(volumeId, nodeId, inUseError, deadline);
          }
          case AwsCallError.NotFound nf -> {
            devices.release(nodeId, device);
            if (nf.resource().equals("instance")) {
              devices.forget(nodeId);
              instanceTypes.remove(nodeId);
            }
            throw DriverException.notFound("AttachVolume of " + volumeId + " to " + nodeId + ": " + nf.message());
          }
          default -> {
            devices.failed(nodeId, device);
            throw e;
          }
        }
      }
    }
  }

  /**
   * DescribeInstances of the node (batched) that records the instance's device names when it answers; fails
   * NOT_FOUND when the node is not an existing instance.
   */
  private CompletableFuture<Optional<Ec2Instance>> lookUpInstance(String nodeId, CallDeadline deadline) {
    long askedAt = devices.now();
    return CompletableFuture.supplyAsync(() -> {
      Optional<Ec2Instance> instance = ec2.instance(nodeId, deadline).filter(i -> !i.gone());
      if (instance.isEmpty()) {
        devices.forget(nodeId);
        instanceTypes.remove(nodeId);
        throw DriverException.notFound("node " + nodeId + " is not an existing EC2 instance");
      }
      devices.mapped(nodeId, instance.get().volumesByDevice().keySet(), instance.get().cardByDevice(), askedAt);
      instanceTypes.put(nodeId, instance.get().instanceType());
      return instance;
    }, LOOKUPS);
  }

  private static Optional<Ec2Instance> join(CompletableFuture<Optional<Ec2Instance>> lookup) {
    try {
      return lookup.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /** EC2 said the volume is in use: find out where, to name the node. */
  private DriverException raceLost(String volumeId, String nodeId, AwsCallError.VolumeInUse error,
      CallDeadline deadline) {
    Set<String> holders = ec2.disk(volumeId, deadline).map(d -> d.activeAttachments().stream()
        .map(Attachment::instanceId).filter(i -> !i.equals(nodeId)).collect(Collectors.toSet())).orElse(Set.of());
    if (!holders.isEmpty()) {
      return attachedElsewhere(volumeId, holders);
    }
    return DriverException.unavailable("AttachVolume of " + volumeId + " to " + nodeId + ": " + error.message()
        + "; will be retried");
  }

  private static DriverException attachedElsewhere(String volumeId, Set<String> nodes) {
    List<String> sorted = nodes.stream().sorted().toList();
    return DriverException.failedPrecondition("volume " + volumeId + " is attached to node "
        + String.join(", ", sorted) + " and is not multi-attach; unpublish it there (or wait for its detach) first");
  }

  /**
   * DetachVolume first, without a Describe: EC2's answer says what there is to do (an attachment that does not exist
   * is success). Only an answer that leaves it open (the volume in another state) is followed by a Describe.
   */
  @Override
  public void unpublish(String volumeId, String nodeId, Map<String, String> secrets) {
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    try {
      String device;
      try {
        device = ec2.detach(volumeId, nodeId, deadline).device();
      } catch (AwsCallException e) {
        switch (e.error()) {
          case AwsCallError.NotFound nf -> {
            detachPending.forget(volumeId, nodeId);
            LOG.info("ControllerUnpublishVolume: {} is not attached to {} ({})", volumeId, nodeId, nf.message());
            return;
          }
          case AwsCallError.VolumeInUse state -> {
            Optional<Attachment> attachment = ec2.disk(volumeId, deadline).flatMap(d -> d.attachmentTo(nodeId));
            if (attachment.isEmpty()) {
              detachPending.forget(volumeId, nodeId);
              LOG.info("ControllerUnpublishVolume: {} is not attached to {} ({})", volumeId, nodeId,
                  state.message());
              return;
            }
            if (attachment.get().state() != Attachment.State.DETACHING) {
              throw DriverException.unavailable("ControllerUnpublishVolume " + volumeId + " from " + nodeId
                  + ": the attachment is " + attachment.get().state().name().toLowerCase() + " (" + state.message()
                  + "); the detach will be retried");
            }
            device = attachment.get().device();
          }
          default -> throw e;
        }
      }
      // Timed from EC2's answer (see publish): the rate limit's wait is not EC2's detach time.
      waiter.awaitDetached(volumeId, nodeId, Instant.now(), deadline);
      if (!device.isEmpty()) {
        devices.detached(nodeId, device);
      }
      LOG.info("ControllerUnpublishVolume: {} detached from {}", volumeId, nodeId);
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, "ControllerUnpublishVolume " + volumeId + " from " + nodeId);
    }
  }
}
