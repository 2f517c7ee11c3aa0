package io.awscsi.ebs.node;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.MountInfo;
import io.awscsi.core.host.MountState;
import io.awscsi.core.host.Mounter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * What is published at a volume path, for the calls that only get a path (expand, stats): a mounted file system
 * with its device, or a bind-mounted device file. Anything else is NOT_FOUND, as the spec asks.
 */
final class PublishedVolumes {

  /** A volume found at a path. */
  sealed interface Published {
    /** A file system mounted from {@code device}. */
    record FileSystem(MountInfo mount, Path device) implements Published {}

    /** A device file bind-mounted at the path (a block volume). */
    record Block(Path deviceFile) implements Published {}
  }

  private final Mounter mounter;
  private final NvmeDeviceLocator locator;

  PublishedVolumes(Mounter mounter, NvmeDeviceLocator locator) {
    this.mounter = mounter;
    this.locator = locator;
  }

  /**
   * The volume published at the path.
   *
   * @throws DriverException NotFound when nothing of this volume is mounted there, FailedPrecondition when the mount
   *     is corrupted
   */
  Published at(String volumeId, Path volumePath) {
    return switch (mounter.inspect(volumePath)) {
      case MountState.Absent() -> throw notFound(volumeId, volumePath, "it does not exist");
      case MountState.NotMounted() -> throw notFound(volumeId, volumePath, "nothing is mounted there");
      case MountState.Corrupted(String reason) -> throw DriverException.failedPrecondition("volume " + volumeId
          + " at " + volumePath + " is a corrupted mount (" + reason + "); restart the pod so it is mounted again");
      case MountState.Mounted(MountInfo mount) -> {
        if (isDeviceFile(volumePath)) {
          yield new Published.Block(volumePath);
        }
        var device = Path.of(mount.source());
        if (!locator.mayBelongTo(device, volumeId)) {
          throw notFound(volumeId, volumePath, "it holds " + device + ", which is "
              + locator.identityOf(device).orElse("another volume"));
        }
        yield new Published.FileSystem(mount, device);
      }
    };
  }

  private static boolean isDeviceFile(Path path) {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class).isOther();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stat " + path, e);
    }
  }

  private static DriverException notFound(String volumeId, Path volumePath, String why) {
    return DriverException.notFound("volume " + volumeId + " is not published at " + volumePath + ": " + why);
  }
}
