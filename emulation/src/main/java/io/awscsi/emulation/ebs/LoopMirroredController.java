package io.awscsi.emulation.ebs;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CapabilityCheck;
import io.awscsi.core.provider.ControllerProvider;
import io.awscsi.core.provider.ExpandRequest;
import io.awscsi.core.provider.ExpandResult;
import io.awscsi.core.provider.GroupSnapshot;
import io.awscsi.core.provider.GroupSnapshotManager;
import io.awscsi.core.provider.GroupSnapshotRequest;
import io.awscsi.core.provider.IdSyntax;
import io.awscsi.core.provider.Page;
import io.awscsi.core.provider.PublishRequest;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.provider.Snapshot;
import io.awscsi.core.provider.SnapshotManager;
import io.awscsi.core.provider.SnapshotQuery;
import io.awscsi.core.provider.SnapshotRequest;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeAttacher;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeExpander;
import io.awscsi.core.provider.VolumeLister;
import io.awscsi.core.provider.VolumeModifier;
import io.awscsi.core.provider.VolumeProvisioner;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.ebs.volume.EbsIds;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The EBS controller as a single-host run sees it: each call goes to the wrapped controller (which talks to EC2, or
 * the stand-in EC2 of a local run) and, once it succeeded, what it did is mirrored onto the {@link LoopDeviceBackend},
 * so the node finds a loop device where EC2 would have attached a disk. A decorator of driver-core's seams rather than
 * hooks in the EBS handlers: the production controller does not know that loop devices exist.
 *
 * <p>An attach, detach or resize the backend cannot mirror fails the call with UNAVAILABLE, so the CO retries it (the
 * wrapped controller's step is idempotent); other failures to mirror (delete, snapshot, restore) are logged, as the
 * call itself succeeded. Only ids of EBS shape reach the backend, whose file names derive from them. The publish
 * answer carries only the device, so the size an attach needs is the one this process saw the volume created or
 * expanded to; a volume it has not seen (made by an earlier process) is asked for through the wrapped controller's
 * GET_VOLUME. A run's AWS calls are therefore those of the controller alone unless a volume outlived its process.
 */
public final class LoopMirroredController implements ControllerProvider {

  private static final Logger LOG = LogManager.getLogger(LoopMirroredController.class);

  private final ControllerProvider controller;
  private final LoopDeviceBackend loops;
  /** Volume id to size in bytes, as created or expanded through this controller. */
  private final Map<String, Long> sizes = new ConcurrentHashMap<>();

  public LoopMirroredController(ControllerProvider controller, LoopDeviceBackend loops) {
    this.controller = controller;
    this.loops = loops;
  }

  @Override
  public VolumeProvisioner provisioner() {
    VolumeProvisioner provisioner = controller.provisioner();
    return new VolumeProvisioner() {
      @Override
      public Volume createVolume(VolumeRequest request) {
        Volume created = provisioner.createVolume(request);
        sizes.put(created.volumeId(), created.capacityBytes());
        switch (request.source()) {
          case VolumeSource.FromSnapshot s -> createdFrom(created.volumeId(), s.snapshotId());
          case VolumeSource.FromVolume v -> createdFrom(created.volumeId(), v.volumeId());
          case VolumeSource.Empty e -> { }
        }
        return created;
      }

      @Override
      public void deleteVolume(String volumeId, Map<String, String> secrets) {
        provisioner.deleteVolume(volumeId, secrets);
        sizes.remove(volumeId);
        mirror("delete", volumeId, () -> loops.deleted(volumeId));
      }

      @Override
      public CapabilityCheck validateCapabilities(String volumeId, List<VolumeCapability> capabilities,
          Map<String, String> volumeContext, Map<String, String> parameters) {
        return provisioner.validateCapabilities(volumeId, capabilities, volumeContext, parameters);
      }

      @Override
      public boolean supportsCloning() {
        return provisioner.supportsCloning();
      }

      @Override
      public boolean supportsSnapshotSource() {
        return provisioner.supportsSnapshotSource();
      }
    };
  }

  @Override
  public Optional<VolumeAttacher> attacher() {
    return controller.attacher().map(attacher -> new VolumeAttacher() {
      @Override
      public Map<String, String> publish(PublishRequest request) {
        Map<String, String> context = attacher.publish(request);
        String volumeId = request.volumeId();
        mirrorOrFail("attach", volumeId, () -> loops.attached(volumeId, sizeOf(volumeId), request.nodeId()));
        return context;
      }

      @Override
      public void unpublish(String volumeId, String nodeId, Map<String, String> secrets) {
        attacher.unpublish(volumeId, nodeId, secrets);
        mirrorOrFail("detach", volumeId, () -> loops.detached(volumeId, nodeId));
      }

      @Override
      public boolean supportsReadonly() {
        return attacher.supportsReadonly();
      }
    });
  }

  @Override
  public Optional<VolumeExpander> expander() {
    return controller.expander().map(expander -> request -> expanded(expander, request));
  }

  private ExpandResult expanded(VolumeExpander expander, ExpandRequest request) {
    ExpandResult result = expander.expand(request);
    sizes.put(request.volumeId(), result.capacityBytes());
    mirrorOrFail("resize", request.volumeId(), () -> loops.resized(request.volumeId(), result.capacityBytes()));
    return result;
  }

  /** ModifyVolume changes type, IOPS or throughput only (size is ControllerExpandVolume): nothing to mirror. */
  @Override
  public Optional<VolumeModifier> modifier() {
    return controller.modifier();
  }

  @Override
  public Optional<SnapshotManager> snapshots() {
    return controller.snapshots().map(snapshots -> new SnapshotManager() {
      @Override
      public Snapshot createSnapshot(SnapshotRequest request) {
        Snapshot created = snapshots.createSnapshot(request);
        if (EbsIds.isSnapshotId(created.snapshotId())) {
          mirror("snapshot", request.sourceVolumeId(),
              () -> loops.snapshotted(created.snapshotId(), request.sourceVolumeId()));
        }
        return created;
      }

      @Override
      public void deleteSnapshot(String snapshotId, Map<String, String> secrets) {
        snapshots.deleteSnapshot(snapshotId, secrets);
        if (EbsIds.isSnapshotId(snapshotId)) {
          try {
            loops.snapshotDeleted(snapshotId);
          } catch (RuntimeException e) {
            LOG.warn("loop backend: could not delete the copy of snapshot {}: {}", snapshotId, e.getMessage());
          }
        }
      }

      @Override
      public Page<Snapshot> listSnapshots(SnapshotQuery query) {
        return snapshots.listSnapshots(query);
      }
    });
  }

  /**
   * Group snapshots: once EC2 took them, the members' backing files are copied at one instant
   * ({@link LoopDeviceBackend#groupSnapshotted}), as CreateSnapshots takes them; delete removes every member's copy.
   */
  @Override
  public Optional<GroupSnapshotManager> groupSnapshots() {
    return controller.groupSnapshots().map(groups -> new GroupSnapshotManager() {
      @Override
      public GroupSnapshot createGroupSnapshot(GroupSnapshotRequest request) {
        GroupSnapshot created = groups.createGroupSnapshot(request);
        Map<String, String> snapshotByVolume = new LinkedHashMap<>();
        created.snapshots().stream()
            .filter(s -> EbsIds.isSnapshotId(s.snapshotId()) && EbsIds.isVolumeId(s.sourceVolumeId()))
            .forEach(s -> snapshotByVolume.put(s.sourceVolumeId(), s.snapshotId()));
        try {
          loops.groupSnapshotted(snapshotByVolume);
        } catch (RuntimeException e) {
          LOG.warn("loop backend: could not mirror group snapshot {}: {}", created.groupSnapshotId(), e.getMessage());
        }
        return created;
      }

      @Override
      public void deleteGroupSnapshot(String groupSnapshotId, List<String> snapshotIds, Map<String, String> secrets) {
        List<String> members = snapshotIds;
        if (members.isEmpty()) {
          try {
            members = groups.getGroupSnapshot(groupSnapshotId, List.of(), secrets).snapshots().stream()
                .map(Snapshot::snapshotId).toList();
          } catch (DriverException e) {
            members = List.of();
          }
        }
        groups.deleteGroupSnapshot(groupSnapshotId, snapshotIds, secrets);
        for (String snapshotId : members) {
          if (EbsIds.isSnapshotId(snapshotId)) {
            try {
              loops.snapshotDeleted(snapshotId);
            } catch (RuntimeException e) {
              LOG.warn("loop backend: could not delete the copy of snapshot {}: {}", snapshotId, e.getMessage());
            }
          }
        }
      }

      @Override
      public GroupSnapshot getGroupSnapshot(String groupSnapshotId, List<String> snapshotIds,
          Map<String, String> secrets) {
        return groups.getGroupSnapshot(groupSnapshotId, snapshotIds, secrets);
      }
    });
  }

  @Override
  public Optional<VolumeLister> lister() {
    return controller.lister();
  }

  @Override
  public IdSyntax ids() {
    return controller.ids();
  }

  @Override
  public Readiness readiness() {
    return controller.readiness();
  }

  private long sizeOf(String volumeId) {
    Long known = sizes.get(volumeId);
    if (known != null) {
      return known;
    }
    VolumeLister lister = controller.lister().orElseThrow(() -> new IllegalStateException(
        "the loop-device backend needs GET_VOLUME to learn the size of " + volumeId));
    long size = lister.getVolume(volumeId).volume().capacityBytes();
    sizes.put(volumeId, size);
    return size;
  }

  private void createdFrom(String volumeId, String sourceId) {
    if (EbsIds.isVolumeId(sourceId) || EbsIds.isSnapshotId(sourceId)) {
      mirror("restore", volumeId, () -> loops.createdFrom(volumeId, sourceId));
    }
  }

  private static void mirrorOrFail(String what, String volumeId, Runnable action) {
    if (ebsShaped(what, volumeId)) {
      try {
        action.run();
      } catch (DriverException e) {
        throw e;
      } catch (RuntimeException e) {
        throw DriverException.unavailable("the loop-device backend could not " + what + " " + volumeId + ": "
            + e.getMessage() + "; the call will be retried", e);
      }
    }
  }

  private static void mirror(String what, String volumeId, Runnable action) {
    if (ebsShaped(what, volumeId)) {
      try {
        action.run();
      } catch (RuntimeException e) {
        LOG.warn("loop backend: could not mirror {} of {}: {}", what, volumeId, e.getMessage());
      }
    }
  }

  private static boolean ebsShaped(String what, String volumeId) {
    if (!EbsIds.isVolumeId(volumeId)) {
      LOG.warn("loop backend: not mirroring {} of {}: not an EBS volume id", what, volumeId);
      return false;
    }
    return true;
  }
}
