package io.awscsi.ebs.node;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.DeviceNumbers;
import io.awscsi.core.host.MountInfo;
import io.awscsi.core.host.MountState;
import io.awscsi.core.host.Mounter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * What of a volume is mounted at a path, proven by the kernel's view of it: the mount's device (mountinfo's
 * {@code major:minor}, or a bind-mounted device file's own number) must be a block device whose identity (NVMe serial,
 * the loop backend's backing file) names the volume. Publish, expand, stats and the tear-downs go through here, so
 * none of them acts on another volume's device, the host's root file system or a kernel file system at a path a
 * caller names.
 */
final class PublishedVolumes {

  /** A volume found at a path. */
  sealed interface Published {
    /** A file system of the volume's device mounted at the path (the staging mount, or a bind of it). */
    record FileSystem(MountInfo mount, Path device) implements Published {}

    /** The volume's device file bind-mounted at the path (a block volume). */
    record Block(Path deviceFile) implements Published {}
  }

  private final Mounter mounter;
  private final VolumeDeviceLocator locator;

  PublishedVolumes(Mounter mounter, VolumeDeviceLocator locator) {
    this.mounter = mounter;
    this.locator = locator;
  }

  /**
   * The volume published at the path (expand, stats).
   *
   * @throws DriverException NotFound when nothing of this volume is mounted there, FailedPrecondition when the mount
   *     is corrupted
   */
  Published at(String volumeId, Path volumePath, String field) {
    return switch (mounter.inspect(volumePath)) {
      case MountState.Absent() -> throw notFound(volumeId, volumePath, field, "it does not exist");
      case MountState.NotMounted() -> throw notFound(volumeId, volumePath, field, "nothing is mounted there");
      case MountState.Corrupted(String reason) -> throw DriverException.failedPrecondition("volume " + volumeId
          + " at " + field + " " + volumePath + " is a corrupted mount (" + reason + "); restart the pod so it is "
          + "mounted again");
      case MountState.Mounted(MountInfo mount) -> identify(volumeId, volumePath, mount)
          .orElseThrow(() -> notFound(volumeId, volumePath, field, "it holds " + what(volumePath, mount)
              + ", which is not this volume's device"));
    };
  }

  /** The volume's file system or device mounted at the path, when what is mounted there is provably the volume's. */
  Optional<Published> identify(String volumeId, Path path, MountInfo mount) {
    Optional<String> deviceFile = deviceNumberOfDeviceFile(path);
    if (deviceFile.isPresent()) {
      return locator.isDeviceOf(deviceFile.get(), volumeId) ? Optional.of(new Published.Block(path))
          : Optional.empty();
    }
    if (!locator.isDeviceOf(mount.deviceNumber(), volumeId)) {
      return Optional.empty();
    }
    return Optional.of(new Published.FileSystem(mount, Path.of("/dev").resolve(
        locator.kernelNameOf(mount.deviceNumber()).orElseThrow())));
  }

  /**
   * Whether a tear-down may unmount the path: a healthy mount must be provably the volume's. A corrupted one (its
   * server or device is gone, so it cannot be identified) is unusable to anyone and is unmounted, so the path can be
   * used again.
   */
  boolean mayUnmount(String volumeId, Path path, MountState state) {
    return switch (state) {
      case MountState.Mounted(MountInfo mount) -> identify(volumeId, path, mount).isPresent();
      case MountState.Corrupted c -> true;
      case MountState.Absent a -> true;
      case MountState.NotMounted n -> true;
    };
  }

  /** What a mount at the path is, for messages. */
  String what(Path path, MountInfo mount) {
    return deviceNumberOfDeviceFile(path).map(n -> "the device file of " + locator.describe(n))
        .orElseGet(() -> mount.source() + " (" + mount.fsType() + ", " + locator.describe(mount.deviceNumber()) + ")");
  }

  /** The {@code major:minor} a block device file at the path stands for, if the path is one. */
  private static Optional<String> deviceNumberOfDeviceFile(Path path) {
    try {
      var attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (!attributes.isOther()) {
        return Optional.empty();
      }
      return Optional.of(DeviceNumbers.ofDeviceFile(path));
    } catch (IOException | UnsupportedOperationException e) {
      throw new UncheckedIOException("cannot stat " + path, e instanceof IOException io ? io
          : new IOException(e.getMessage()));
    }
  }

  private static DriverException notFound(String volumeId, Path volumePath, String field, String why) {
    return DriverException.notFound("volume " + volumeId + " is not published at " + field + " " + volumePath
        + ": " + why);
  }
}
