package io.awscsi.ebs.node;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.DeviceNumbers;
import io.awscsi.core.host.HostTools;
import io.awscsi.core.host.InvalidMountOptionException;
import io.awscsi.core.host.MountInfo;
import io.awscsi.core.host.MountOptions;
import io.awscsi.core.host.MountState;
import io.awscsi.core.host.MountTargets;
import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.NodePublishRequest;
import io.awscsi.core.provider.VolumePublisher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * NodePublishVolume / NodeUnpublishVolume for EBS: a bind mount of the staged file system onto the pod's target
 * directory, or of the device itself onto a target file for block volumes. Read-only is absolute: a read-only file
 * system publish is a read-only bind ({@code rw} in the flags is refused), and a read-only block publish makes the
 * device itself read-only (a read-only bind of a device file would not stop writes). What is mounted at the staging
 * and target paths is checked to be this volume's device before anything is bound or unmounted.
 */
public final class EbsVolumePublisher implements VolumePublisher {

  private static final Logger LOG = LogManager.getLogger(EbsVolumePublisher.class);

  private final VolumeDeviceLocator locator;
  private final HostTools host;
  private final PublishedVolumes published;

  public EbsVolumePublisher(VolumeDeviceLocator locator, HostTools host) {
    this.locator = locator;
    this.host = host;
    this.published = new PublishedVolumes(host.mounter(), locator);
  }

  @Override
  public void publish(NodePublishRequest request) {
    var target = NodeRequests.cleanPath(request.targetPath(), "target_path");
    NodeRequests.checkCapability(request.capability());
    var volumeId = request.volumeId();
    boolean readOnly = request.readonly() || request.capability().accessMode().readOnly();
    switch (request.capability().accessType()) {
      case AccessType.Block() -> {
        var device = locator.locate(volumeId, request.publishContext(), request.volumeContext());
        HostFailures.run("publishing block volume " + volumeId + " (" + device + ") at " + target,
            () -> publishBlock(volumeId, device, target, readOnly));
      }
      case AccessType.Mount mount -> {
        var staging = NodeRequests.cleanPath(request.stagingPath(), "staging_target_path");
        try {
          MountOptions.checkReadOnly(readOnly, mount.mountFlags());
        } catch (InvalidMountOptionException e) {
          throw DriverException.invalidArgument("volume_capability.mount.mount_flags", e.getMessage());
        }
        HostFailures.run("publishing volume " + volumeId + " from " + staging + " at " + target,
            () -> publishFileSystem(volumeId, staging, target, readOnly, mount.mountFlags()));
      }
    }
  }

  private void publishFileSystem(String volumeId, Path staging, Path target, boolean readOnly,
      List<String> requestedFlags) {
    var staged = stagedFileSystem(volumeId, staging);
    // The staged file system's own type decides which flags make sense (the capability may leave it open).
    var flags = NodeRequests.mountFlags(staged.fsType(), requestedFlags);
    boolean readOnlyMount = readOnly || flags.contains("ro");
    switch (host.mounter().inspect(target)) {
      case MountState.Mounted(MountInfo existing) -> {
        var ours = published.identify(volumeId, target, existing);
        boolean same = ours.isPresent() && ours.get() instanceof PublishedVolumes.Published.FileSystem
            && existing.deviceNumber().equals(staged.deviceNumber());
        if (same && existing.readOnly() == readOnlyMount) {
          LOG.info("NodePublishVolume: {} is already published at {}", volumeId, target);
          return;
        }
        throw DriverException.alreadyExists("target_path " + target + " already has "
            + (same ? "volume " + volumeId : published.what(target, existing))
            + (existing.readOnly() ? " (read-only)" : " (read-write)") + " mounted, which is not volume " + volumeId
            + " as requested (" + (readOnlyMount ? "read-only" : "read-write") + "); unpublish it first");
      }
      case MountState.Corrupted(String reason) -> unmountCorrupted(volumeId, target, reason);
      case MountState.Absent() -> {
        checkTarget(target, MountTargets.Kind.DIRECTORY);
        EbsVolumeStager.createDirectories(target);
      }
      case MountState.NotMounted() -> checkTarget(target, MountTargets.Kind.DIRECTORY);
    }
    host.mounter().bindMount(staging, target, readOnlyMount, flags);
    LOG.info("NodePublishVolume: published {} at {}{}", volumeId, target, readOnlyMount ? " read-only" : "");
  }

  /**
   * The file system mounted at the staging path, when it is this volume's device: a staging path of another volume,
   * the host's root or anything else is FAILED_PRECONDITION, and nothing is bound from it.
   */
  private MountInfo stagedFileSystem(String volumeId, Path staging) {
    if (!(host.mounter().inspect(staging) instanceof MountState.Mounted(MountInfo staged))) {
      throw DriverException.failedPrecondition("volume " + volumeId + " is not staged at staging_target_path "
          + staging + " (nothing healthy is mounted there); NodeStageVolume must succeed before NodePublishVolume");
    }
    if (!(published.identify(volumeId, staging, staged).orElse(null)
        instanceof PublishedVolumes.Published.FileSystem)) {
      throw DriverException.failedPrecondition("volume " + volumeId + " is not staged at staging_target_path "
          + staging + ": it holds " + published.what(staging, staged) + ", which is not this volume's device; "
          + "NodeStageVolume of this volume must succeed at that path first");
    }
    return staged;
  }

  private void publishBlock(String volumeId, Path device, Path target, boolean readOnly) {
    switch (host.mounter().inspect(target)) {
      case MountState.Mounted(MountInfo existing) -> {
        if (sameDevice(target, device)) {
          if (existing.readOnly() == readOnly && (!readOnly || host.devices().isReadOnly(device))) {
            LOG.info("NodePublishVolume: block volume {} is already published at {}", volumeId, target);
            return;
          }
          throw DriverException.alreadyExists("target_path " + target + " already has block volume " + volumeId
              + " published " + (existing.readOnly() ? "read-only" : "read-write") + ", not "
              + (readOnly ? "read-only" : "read-write") + " as requested; unpublish it first");
        }
        throw DriverException.alreadyExists("target_path " + target + " already has "
            + published.what(target, existing) + " mounted, not " + device + " of volume " + volumeId
            + "; unpublish it first");
      }
      case MountState.Corrupted(String reason) -> unmountCorrupted(volumeId, target, reason);
      case MountState.Absent() -> {
        checkTarget(target, MountTargets.Kind.FILE);
        createFile(target);
      }
      case MountState.NotMounted() -> checkTarget(target, MountTargets.Kind.FILE);
    }
    var others = otherBinds(device, target);
    if (readOnly) {
      others.stream().filter(m -> !m.readOnly()).findFirst().ifPresent(m -> {
        throw DriverException.failedPrecondition("block volume " + volumeId + " is published read-write at "
            + m.mountPoint() + " on this node; a read-only publish makes the device itself read-only, which would "
            + "take writes away from that pod too");
      });
      host.devices().setReadOnly(device, true);
    } else if (host.devices().isReadOnly(device)) {
      if (!others.isEmpty()) {
        throw DriverException.failedPrecondition("block volume " + volumeId + " is published read-only at "
            + others.getFirst().mountPoint() + " on this node, which makes its device read-only; unpublish it "
            + "before publishing the volume read-write");
      }
      host.devices().setReadOnly(device, false); // left over from a read-only publish that is gone
    }
    host.mounter().bindMount(device, target, readOnly, List.of());
    LOG.info("NodePublishVolume: published block volume {} ({}) at {}{}", volumeId, device, target,
        readOnly ? " read-only" : "");
  }

  @Override
  public void unpublish(String volumeId, Path targetPath) {
    var target = NodeRequests.cleanPath(targetPath, "target_path");
    HostFailures.run("unpublishing volume " + volumeId + " from " + target, () -> {
      var state = host.mounter().inspect(target);
      Optional<Path> blockDevice = Optional.empty();
      if (state.isMountPoint()) {
        if (!published.mayUnmount(volumeId, target, state)) {
          var what = state instanceof MountState.Mounted(MountInfo mount) ? published.what(target, mount)
              : "a corrupted mount";
          throw DriverException.failedPrecondition("target_path " + target + " holds " + what
              + ", which is not volume " + volumeId + "; it is not unmounted");
        }
        if (state instanceof MountState.Mounted(MountInfo mount)
            && published.identify(volumeId, target, mount).orElse(null)
                instanceof PublishedVolumes.Published.Block) {
          blockDevice = locator.kernelNameOf(deviceNumberOf(target)).map(name -> Path.of("/dev").resolve(name));
        }
        host.mounter().unmount(target);
      }
      removeTarget(volumeId, target);
      blockDevice.ifPresent(device -> {
        if (otherBinds(device, target).isEmpty() && host.devices().isReadOnly(device)) {
          host.devices().setReadOnly(device, false); // the last read-only publish is gone
        }
      });
    });
  }

  /** Removes the target the publish made (an empty directory or file); never anything that holds data. */
  private static void removeTarget(String volumeId, Path target) {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(target, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException absent) {
      return;
    }
    if (attributes.isSymbolicLink() || attributes.isOther()) {
      LOG.info("NodeUnpublishVolume: {} is not mounted at {}, which is not a target this driver made; left as is",
          volumeId, target);
      return;
    }
    if (attributes.isRegularFile() && attributes.size() > 0) {
      throw DriverException.failedPrecondition("target_path " + target + " of volume " + volumeId + " is a "
          + "regular file with data and nothing is mounted on it, so it is not removed");
    }
    try {
      if (Files.deleteIfExists(target)) {
        LOG.info("NodeUnpublishVolume: unpublished {} from {}", volumeId, target);
      }
    } catch (DirectoryNotEmptyException e) {
      // Whatever is in it is not the volume's (that was unmounted): never delete data to make a call succeed.
      throw DriverException.failedPrecondition("target_path " + target + " of volume " + volumeId + " is unmounted "
          + "but not empty, so it is not removed; inspect and remove its contents by hand");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + target, e);
    }
  }

  private void unmountCorrupted(String volumeId, Path target, String reason) {
    LOG.warn("NodePublishVolume: unmounting the corrupted mount at {}: {}", target, reason);
    host.mounter().unmount(target);
  }

  private void checkTarget(Path target, MountTargets.Kind kind) {
    MountTargets.problem(host.mounter(), target, kind).ifPresent(problem -> {
      throw DriverException.failedPrecondition("target_path " + target + " " + problem);
    });
  }

  /** Binds of the device's file other than at {@code target} (publishes of the same block volume elsewhere). */
  private List<MountInfo> otherBinds(Path device, Path target) {
    var devicePathInDevtmpfs = "/" + device.getFileName();
    return host.mounter().mounts().stream()
        .filter(m -> m.fsType().equals("devtmpfs") && m.root().equals(devicePathInDevtmpfs)
            && !m.mountPoint().equals(target))
        .toList();
  }

  private static String deviceNumberOf(Path deviceFile) {
    try {
      return DeviceNumbers.ofDeviceFile(deviceFile);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the device number of " + deviceFile, e);
    }
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
