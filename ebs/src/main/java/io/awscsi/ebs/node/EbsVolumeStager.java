package io.awscsi.ebs.node;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.DeviceContent;
import io.awscsi.core.host.DeviceNumbers;
import io.awscsi.core.host.HostTools;
import io.awscsi.core.host.MkfsOptions;
import io.awscsi.core.host.MountInfo;
import io.awscsi.core.host.MountState;
import io.awscsi.core.host.MountTargets;
import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.StageRequest;
import io.awscsi.core.provider.VolumeStager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Set;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * NodeStageVolume / NodeUnstageVolume for EBS: find the attached device, make a file system only on an empty device,
 * grow a file system that is smaller than its device, and mount it at the staging path. Block volumes need no
 * staging. A device that holds anything is never formatted: the data-safety rule of this class.
 */
public final class EbsVolumeStager implements VolumeStager {

  private static final Logger LOG = LogManager.getLogger(EbsVolumeStager.class);
  private static final Set<String> EXT_TYPES = Set.of("ext2", "ext3", "ext4");

  private final VolumeDeviceLocator locator;
  private final HostTools host;
  private final PublishedVolumes published;
  private final boolean legacyXfs;

  /**
   * @param legacyXfs make xfs file systems that kernels up to 5.4 can mount ({@code --legacy-xfs})
   */
  public EbsVolumeStager(VolumeDeviceLocator locator, HostTools host, boolean legacyXfs) {
    this.locator = locator;
    this.host = host;
    this.published = new PublishedVolumes(host.mounter(), locator);
    this.legacyXfs = legacyXfs;
  }

  @Override
  public void stage(StageRequest request) {
    var staging = NodeRequests.cleanPath(request.stagingPath(), "staging_target_path");
    NodeRequests.checkCapability(request.capability());
    if (!(request.capability().accessType() instanceof AccessType.Mount mount)) {
      return; // Block volumes are bind-mounted straight from the device at publish.
    }
    var fsType = NodeRequests.fsType(mount);
    var flags = NodeRequests.mountFlags(fsType, mount.mountFlags());
    var mkfsOptions = MkfsParameters.parse(request.volumeContext(), fsType, legacyXfs);
    var volumeId = request.volumeId();
    var device = locator.locate(volumeId, request.publishContext(), request.volumeContext());

    var action = "staging volume " + volumeId + " (device " + device + ") at " + staging;
    HostFailures.run(action, () -> {
      if (alreadyStaged(volumeId, device, staging)) {
        return;
      }
      var mountType = prepareFileSystem(volumeId, device, fsType, mkfsOptions);
      var options = new ArrayList<>(flags);
      if (mountType.equals("xfs") && !options.contains("nouuid")) {
        // Restored snapshots and clones share their source's UUID; xfs refuses a second mount of a UUID without it.
        options.add("nouuid");
      }
      host.mounter().mount(device.toString(), staging, mountType, options);
      if (mountType.equals("xfs") && host.resizer().needsResize(device, staging, mountType)) {
        host.resizer().resizeOnline(device, staging, mountType);
      }
      LOG.info("NodeStageVolume: staged {} ({} {}) at {}", volumeId, device, mountType, staging);
    });
  }

  /**
   * Checks what is at the staging path. The same device mounted there is an earlier stage that succeeded (OK);
   * another device there is a conflict; a corrupted mount is removed so the volume can be mounted again.
   */
  private boolean alreadyStaged(String volumeId, Path device, Path staging) {
    switch (host.mounter().inspect(staging)) {
      case MountState.Mounted(MountInfo existing) -> {
        if (existing.deviceNumber().equals(deviceNumber(device))) {
          LOG.info("NodeStageVolume: {} is already staged at {}", volumeId, staging);
          return true;
        }
        throw DriverException.alreadyExists("staging path " + staging + " already has " + existing.source()
            + " mounted, not volume " + volumeId + " (" + device + "); unstage what is there first");
      }
      case MountState.Corrupted(String reason) -> {
        LOG.warn("NodeStageVolume: unmounting the corrupted mount at {} before staging {}: {}", staging, volumeId,
            reason);
        host.mounter().unmount(staging);
      }
      case MountState.Absent() -> {
        checkTarget(staging);
        createDirectories(staging);
      }
      case MountState.NotMounted() -> checkTarget(staging);
    }
    return false;
  }

  private void checkTarget(Path staging) {
    MountTargets.problem(host.mounter(), staging, MountTargets.Kind.DIRECTORY).ifPresent(problem -> {
      throw DriverException.failedPrecondition("staging_target_path " + staging + " " + problem);
    });
  }

  /**
   * Makes sure the device holds a file system of a usable type, big enough for the device, and returns the type
   * to mount it as. An ext file system is grown before mounting (offline), which works without CAP_SYS_RESOURCE.
   */
  private String prepareFileSystem(String volumeId, Path device, String fsType, MkfsOptions mkfsOptions) {
    return switch (host.formatter().probe(device)) {
      case DeviceContent.Unformatted() -> {
        host.formatter().format(device, fsType, mkfsOptions);
        yield fsType;
      }
      case DeviceContent.FileSystem(String existing) -> {
        var mountType = compatibleType(volumeId, device, existing, fsType);
        if (EXT_TYPES.contains(mountType) && host.resizer().needsResize(device, null, mountType)) {
          LOG.info("NodeStageVolume: {} on {} is smaller than its device; growing it before mounting", mountType,
              device);
          host.resizer().resizeOffline(device, mountType);
        }
        yield mountType;
      }
      case DeviceContent.PartitionTable(String table) -> throw DriverException.failedPrecondition("volume "
          + volumeId + " (" + device + ") holds a " + table + " partition table; the driver mounts whole-device "
          + "file systems only and never reformats a device with data");
    };
  }

  /**
   * The type to mount an existing file system as. Within the ext family the file system's own type is used (an
   * ext3 volume asked for as ext4 mounts fine as it is); across families the data decides and the request is refused.
   */
  private static String compatibleType(String volumeId, Path device, String existing, String requested) {
    if (existing.equals(requested) || (EXT_TYPES.contains(existing) && EXT_TYPES.contains(requested))) {
      return existing;
    }
    throw DriverException.failedPrecondition("volume " + volumeId + " (" + device + ") already holds a " + existing
        + " file system but " + requested + " was requested; it is not reformatted. Set the fsType of the "
        + "PersistentVolume to " + existing);
  }

  @Override
  public void unstage(String volumeId, Path stagingPath) {
    var staging = NodeRequests.cleanPath(stagingPath, "staging_target_path");
    HostFailures.run("unstaging volume " + volumeId + " from " + staging, () -> {
      var state = host.mounter().inspect(staging);
      if (!state.isMountPoint()) {
        return;
      }
      if (!published.mayUnmount(volumeId, staging, state)) {
        var what = state instanceof MountState.Mounted(MountInfo mount) ? published.what(staging, mount)
            : "a corrupted mount";
        throw DriverException.failedPrecondition("staging_target_path " + staging + " holds " + what
            + ", which is not volume " + volumeId + "; it is not unmounted");
      }
      host.mounter().unmount(staging);
      LOG.info("NodeUnstageVolume: unmounted {} from {}", volumeId, staging);
    });
  }

  private static String deviceNumber(Path device) {
    try {
      return DeviceNumbers.ofDeviceFile(device);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the device number of " + device, e);
    }
  }

  static void createDirectories(Path path) {
    try {
      Files.createDirectories(path);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + path, e);
    }
  }
}
