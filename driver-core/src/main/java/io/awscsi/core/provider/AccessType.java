package io.awscsi.core.provider;

import java.util.List;

/** How a volume is consumed: as a raw block device or as a mounted file system. */
public sealed interface AccessType {

  record Block() implements AccessType {}

  /**
   * A mounted file system. {@code fsType} is empty when the CO left it to the driver; {@code mountFlags} are the
   * StorageClass / PV mountOptions, not yet validated.
   */
  record Mount(String fsType, List<String> mountFlags, String volumeMountGroup) implements AccessType {
    public Mount {
      fsType = fsType == null ? "" : fsType;
      mountFlags = List.copyOf(mountFlags);
      volumeMountGroup = volumeMountGroup == null ? "" : volumeMountGroup;
    }
  }
}
