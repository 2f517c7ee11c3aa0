package io.awscsi.ebs.limits;

/**
 * The node flags {@code --volume-attach-limit} and {@code --reserved-volume-attachments}; -1 means "not set", as
 * upstream's defaults. They cannot be combined.
 */
public record VolumeAttachLimitSettings(int volumeAttachLimit, int reservedVolumeAttachments) {

  public static final int UNSET = -1;

  public VolumeAttachLimitSettings {
    if (volumeAttachLimit < UNSET) {
      throw new IllegalArgumentException("--volume-attach-limit must be >= 0 or -1 (unset), was " + volumeAttachLimit);
    }
    if (reservedVolumeAttachments < UNSET) {
      throw new IllegalArgumentException(
          "--reserved-volume-attachments must be >= 0 or -1 (unset), was " + reservedVolumeAttachments);
    }
    if (volumeAttachLimit != UNSET && reservedVolumeAttachments != UNSET) {
      throw new IllegalArgumentException(
          "--volume-attach-limit and --reserved-volume-attachments cannot be used together; keep one");
    }
  }

  /** Neither flag set: the limit comes from the instance type. */
  public static VolumeAttachLimitSettings defaults() {
    return new VolumeAttachLimitSettings(UNSET, UNSET);
  }

  public boolean hasExplicitLimit() {
    return volumeAttachLimit != UNSET;
  }

  public boolean hasReservedAttachments() {
    return reservedVolumeAttachments != UNSET;
  }
}
