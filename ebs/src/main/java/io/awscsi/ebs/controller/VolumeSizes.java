package io.awscsi.ebs.controller;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CapacityRange;

/** CSI capacity ranges in bytes to EBS sizes in whole GiB. */
final class VolumeSizes {

  static final long GIB = 1L << 30;
  /** Upstream's size when the request gives no capacity. */
  static final int DEFAULT_GIB = 100;

  private VolumeSizes() {}

  static int roundUpGiB(long bytes) {
    long gib = (bytes + GIB - 1) / GIB;
    if (gib > Integer.MAX_VALUE) {
      throw DriverException.outOfRange(bytes + " bytes is larger than any EBS volume");
    }
    return (int) gib;
  }

  /**
   * The size to create: the required bytes rounded up to GiB; without a required size, {@code fallbackGiB} (the
   * snapshot's size, else 100 GiB raised to the type's minimum) within the limit. OutOfRange when no whole GiB fits
   * the range or the type's limits.
   */
  static int resolve(CapacityRange range, int fallbackGiB, VolumeType type) {
    int gib;
    if (range.requiredBytes() > 0) {
      gib = roundUpGiB(range.requiredBytes());
    } else if (range.limitBytes() > 0) {
      gib = (int) Math.min(fallbackGiB, range.limitBytes() / GIB);
      if (gib == 0) {
        throw DriverException.outOfRange("limit_bytes " + range.limitBytes() + " is smaller than 1 GiB, the "
            + "smallest EBS size");
      }
    } else {
      gib = fallbackGiB;
    }
    if (range.limitBytes() > 0 && gib * GIB > range.limitBytes()) {
      throw DriverException.outOfRange("no whole GiB fits the capacity range (required_bytes "
          + range.requiredBytes() + ", limit_bytes " + range.limitBytes() + "): EBS sizes are whole GiB");
    }
    type.checkSize(gib);
    return gib;
  }
}
