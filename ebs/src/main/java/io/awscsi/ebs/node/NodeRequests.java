package io.awscsi.ebs.node;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.InvalidMountOptionException;
import io.awscsi.core.host.MountOptions;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.VolumeCapability;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Checks of node requests that every EBS node call shares: paths, capabilities, file-system types, mount flags. */
final class NodeRequests {

  /** File systems EBS volumes are formatted with on Linux (upstream's ValidFSTypes without Windows' ntfs). */
  static final Set<String> FS_TYPES = Set.of("ext3", "ext4", "xfs");
  static final String DEFAULT_FS_TYPE = "ext4";

  private NodeRequests() {}

  /** Absolute and without {@code .}/{@code ..}; the CSI layer checks this too, but host code must not rely on it. */
  static Path cleanPath(Path path, String field) {
    if (path == null) {
      throw DriverException.invalidArgument(field, field + " is required");
    }
    if (!path.isAbsolute() || !path.normalize().equals(path)) {
      throw DriverException.invalidArgument(field, field + " must be an absolute path without '.' or '..', got "
          + path);
    }
    return path;
  }

  /** EBS offers single-node writers, and multi-node writers on raw block devices only (io2 multi-attach). */
  static void checkCapability(VolumeCapability capability) {
    if (capability == null) {
      throw DriverException.invalidArgument("volume_capability", "volume_capability is required");
    }
    var mode = capability.accessMode();
    boolean supported = mode == AccessMode.SINGLE_NODE_WRITER
        || (mode == AccessMode.MULTI_NODE_MULTI_WRITER && capability.isBlock());
    if (!supported) {
      throw DriverException.invalidArgument("volume_capability.access_mode", "access mode " + mode + " with "
          + (capability.isBlock() ? "block" : "mount") + " access is not supported by EBS volumes; use "
          + "SINGLE_NODE_WRITER, or MULTI_NODE_MULTI_WRITER with block access on io2");
    }
  }

  /** The requested file-system type, ext4 when the CO left it open. */
  static String fsType(AccessType.Mount mount) {
    var fsType = mount.fsType().isBlank() ? DEFAULT_FS_TYPE : mount.fsType().toLowerCase(Locale.ROOT);
    if (!FS_TYPES.contains(fsType)) {
      throw DriverException.invalidArgument("volume_capability.mount.fs_type", "file-system type '"
          + mount.fsType() + "' is not supported; use one of ext3, ext4, xfs");
    }
    return fsType;
  }

  /** The mount flags checked against the allowlist of the file system's family. */
  static List<String> mountFlags(String fsType, List<String> flags) {
    var family = MountOptions.Family.of(fsType).orElseThrow(() -> DriverException.invalidArgument(
        "volume_capability.mount.fs_type", "file-system type '" + fsType + "' is not supported"));
    try {
      return MountOptions.validate(family, flags);
    } catch (InvalidMountOptionException e) {
      throw DriverException.invalidArgument("volume_capability.mount.mount_flags", e.getMessage());
    }
  }
}
