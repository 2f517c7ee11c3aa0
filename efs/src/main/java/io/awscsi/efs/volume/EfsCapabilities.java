package io.awscsi.efs.volume;

import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.VolumeCapability;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which volume capabilities EFS volumes support: mounted file systems (never block), fsType "" or "efs", and the
 * access modes ReadWriteOnce, ReadWriteMany and, beyond upstream, ReadOnlyMany (mounted read-only on every node).
 */
public final class EfsCapabilities {

  public static final Set<AccessMode> ACCESS_MODES = EnumSet.of(AccessMode.SINGLE_NODE_WRITER,
      AccessMode.MULTI_NODE_MULTI_WRITER, AccessMode.MULTI_NODE_READER_ONLY);

  private EfsCapabilities() {}

  /** Why the capability cannot be served, or empty when it can. */
  public static Optional<String> unsupported(VolumeCapability capability) {
    if (!(capability.accessType() instanceof AccessType.Mount mount)) {
      return Optional.of("EFS volumes are file systems; block access is not supported");
    }
    if (!mount.fsType().isEmpty() && !mount.fsType().equals("efs")) {
      return Optional.of("fsType \"" + mount.fsType() + "\" is not supported; leave it empty or use efs");
    }
    if (!ACCESS_MODES.contains(capability.accessMode())) {
      return Optional.of("access mode " + capability.accessMode() + " is not supported; use SINGLE_NODE_WRITER, "
          + "MULTI_NODE_MULTI_WRITER or MULTI_NODE_READER_ONLY");
    }
    return Optional.empty();
  }

  /** The first reason any of the capabilities cannot be served. */
  public static Optional<String> unsupported(List<VolumeCapability> capabilities) {
    return capabilities.stream().map(EfsCapabilities::unsupported).flatMap(Optional::stream).findFirst();
  }
}
