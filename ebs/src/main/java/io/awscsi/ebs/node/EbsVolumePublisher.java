package io.awscsi.ebs.node;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.DeviceNumbers;
import io.awscsi.core.host.HostTools;
import io.awscsi.core.host.MountInfo;
import io.awscsi.core.host.MountState;
import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.NodePublishRequest;
import io.awscsi.core.provider.VolumePublisher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * NodePublishVolume / NodeUnpublishVolume for EBS: a bind mount of the staged file system onto the pod's target
 * directory, or of the device itself onto a target file for block volumes; read-only when asked.
 */
public final class EbsVolumePublisher implements VolumePublisher {

  private static final Logger LOG = LogManager.getLogger(EbsVolumePublisher.class);

  private final NvmeDeviceLocator locator;
  private final HostTools host;

  public EbsVolumePublisher(NvmeDeviceLocator locator, HostTools host) {
    this.locator = locator;
    this.host = host;
  }

  @Override
  public void publish(NodePublishRequest request) {
    var target = NodeRequests.cleanPath(request.targetPath(), "target_path");
    NodeRequests.checkCapability(request.capability());
    var volumeId = request.volumeId();
    switch (request.capability().accessType()) {
      case AccessType.Block() -> {
        var device = locator.locate(volumeId, request.publishContext());
        HostFailures.run("publishing block volume " + volumeId + " (" + device + ") at " + target,
            () -> publishBlock(volumeId, device, target, request.readonly()));
      }
      case AccessType.Mount mount -> {
        var staging = NodeRequests.cleanPath(request.stagingPath(), "staging_target_path");
        HostFailures.run("publishing volume " + volumeId + " from " + staging + " at " + target,
            () -> publishFileSystem(volumeId, staging, target, request.readonly(), mount.mountFlags()));
      }
    }
  }

  private void publishFileSystem(String volumeId, Path staging, Path target, boolean readOnly,
      List<String> requestedFlags) {
    if (!(host.mounter().inspect(staging) instanceof MountState.Mounted(MountInfo staged))) {
      throw DriverException.failedPrecondition("volume " + volumeId + " is not staged at " + staging
          + " (nothing healthy is mounted there); NodeStageVolume must succeed before NodePublishVolume");
    }
    // The staged file system's own type decides which flags make sense (the capability may leave it open).
    var flags = NodeRequests.mountFlags(staged.fsType(), requestedFlags);
    switch (host.mounter().inspect(target)) {
      case MountState.Mounted(MountInfo existing) -> {
        if (existing.deviceNumber().equals(staged.deviceNumber()) && existing.readOnly() == readOnly) {
          LOG.info("NodePublishVolume: {} is already published at {}", volumeId, target);
          return;
        }
        throw DriverException.alreadyExists("target " + target + " already has " + existing.source()
            + (existing.readOnly() ? " (read-only)" : " (read-write)") + " mounted, which is not volume " + volumeId
            + " as requested (" + (readOnly ? "read-only" : "read-write") + "); unpublish it first");
      }
      case MountState.Corrupted(String reason) -> {
        LOG.warn("NodePublishVolume: unmounting the corrupted mount at {}: {}", target, reason);
        host.mounter().unmount(target);
      }
      case MountState.Absent() -> EbsVolumeStager.createDirectories(target);
      case MountState.NotMounted() -> { }
    }
    host.mounter().bindMount(staging, target, readOnly, flags);
    LOG.info("NodePublishVolume: published {} at {}{}", volumeId, target, readOnly ? " read-only" : "");
  }

  private void publishBlock(String volumeId, Path device, Path target, boolean readOnly) {
    switch (host.mounter().inspect(target)) {
      case MountState.Mounted _ -> {
        if (sameDevice(target, device)) {
          LOG.info("NodePublishVolume: block volume {} is already published at {}", volumeId, target);
          return;
        }
        throw DriverException.alreadyExists("target " + target + " already has another device mounted, not "
            + device + " of volume " + volumeId + "; unpublish it first");
      }
      case MountState.Corrupted(String reason) -> {
        LOG.warn("NodePublishVolume: unmounting the corrupted mount at {}: {}", target, reason);
        host.mounter().unmount(target);
      }
      case MountState.Absent() -> createFile(target);
      case MountState.NotMounted() -> { }
    }
    host.mounter().bindMount(device, target, readOnly, List.of());
    LOG.info("NodePublishVolume: published block volume {} ({}) at {}", volumeId, device, target);
  }

  @Override
  public void unpublish(String volumeId, Path targetPath) {
    var target = NodeRequests.cleanPath(targetPath, "target_path");
    HostFailures.run("unpublishing volume " + volumeId + " from " + target, () -> {
      if (host.mounter().inspect(target).isMountPoint()) {
        host.mounter().unmount(target);
      }
      try {
        if (Files.deleteIfExists(target)) {
          LOG.info("NodeUnpublishVolume: unpublished {} from {}", volumeId, target);
        }
      } catch (DirectoryNotEmptyException e) {
        // Whatever is in it is not the volume's (that was unmounted): never delete data to make a call succeed.
        throw DriverException.failedPrecondition("target " + target + " of volume " + volumeId + " is unmounted but "
            + "not empty, so it is not removed; inspect and remove its contents by hand");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove " + target, e);
      }
    });
  }

  private static boolean sameDevice(Path target, Path device) {
    try {
      return DeviceNumbers.ofDeviceFile(target).equals(DeviceNumbers.ofDeviceFile(device));
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  private static void createFile(Path target) {
    try {
      Files.createDirectories(target.getParent());
      Files.createFile(target);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the target file " + target, e);
    }
  }
}
