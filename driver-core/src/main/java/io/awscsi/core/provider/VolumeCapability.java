package io.awscsi.core.provider;

/** One requested way to use a volume. */
public record VolumeCapability(AccessMode accessMode, AccessType accessType) {

  public boolean isBlock() {
    return accessType instanceof AccessType.Block;
  }

  /** The file-system type asked for, or empty for block volumes and when the CO left it open. */
  public String fsType() {
    return accessType instanceof AccessType.Mount m ? m.fsType() : "";
  }

  public static VolumeCapability mount(AccessMode mode, String fsType) {
    return new VolumeCapability(mode, new AccessType.Mount(fsType, java.util.List.of(), ""));
  }

  public static VolumeCapability block(AccessMode mode) {
    return new VolumeCapability(mode, new AccessType.Block());
  }
}
