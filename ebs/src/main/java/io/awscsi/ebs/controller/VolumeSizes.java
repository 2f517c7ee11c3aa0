package io.awscsi.ebs.controller;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CapacityRange;

/**
 * CSI capacity ranges in bytes to EBS sizes in whole GiB, in exact arithmetic: no byte count of a {@code long}
 * overflows on its way to GiB, and a size above what the volume type allows is OUT_OF_RANGE naming the field that
 * asked for it, never a wrapped-around small volume.
 */
final class VolumeSizes {

  static final long GIB = 1L << 30;
  /** Upstream's size when the request gives no capacity. */
  static final int DEFAULT_GIB = 100;

  static final String REQUIRED_FIELD = "capacity_range.required_bytes";
  static final String LIMIT_FIELD = "capacity_range.limit_bytes";

  private VolumeSizes() {}

  /** {@code bytes} (not negative) rounded up to whole GiB; exact for every {@code long}. */
  static long ceilGiB(long bytes) {
    return bytes / GIB + (bytes % GIB == 0 ? 0 : 1);
  }

  /**
   * The size to create: the required bytes rounded up to GiB; without a required size, {@code fallbackGiB} (the
   * snapshot's size, else 100 GiB raised to the type's minimum) within the limit. OutOfRange, naming the field, when
   * no whole GiB fits the range or the type's limits.
   */
  static int resolve(CapacityRange range, int fallbackGiB, VolumeType type) {
    long gib;
    String field;
    if (range.requiredBytes() > 0) {
      gib = ceilGiB(range.requiredBytes());
      field = REQUIRED_FIELD;
    } else if (range.limitBytes() > 0) {
      gib = Math.min(fallbackGiB, range.limitBytes() / GIB);
      field = LIMIT_FIELD;
      if (gib == 0) {
        throw DriverException.outOfRange(LIMIT_FIELD + " " + range.limitBytes() + " is smaller than 1 GiB, the "
            + "smallest EBS size");
      }
    } else {
      gib = fallbackGiB;
      field = "capacity_range";
    }
    requireWithinLimit(gib, range);
    return checked(gib, type, field, range);
  }

  /**
   * The size to grow to: the required bytes rounded up to GiB, or the current size when that is already as large
   * (the spec's "already larger than or equal to the target capacity" is OK). OutOfRange for a range no whole GiB
   * fits (the current size above the limit included) or a size the type does not allow.
   *
   * @param type the volume's type, or null when EC2 reports one this driver does not know (no type limit checked)
   */
  static int forExpand(CapacityRange range, int currentGiB, VolumeType type, String volumeId) {
    long gib = Math.max(ceilGiB(range.requiredBytes()), currentGiB);
    requireWithinLimit(gib, range);
    if (gib == currentGiB) {
      return currentGiB;
    }
    if (type == null) {
      if (gib > Integer.MAX_VALUE) {
        throw DriverException.outOfRange(REQUIRED_FIELD + " " + range.requiredBytes() + " (" + gib + " GiB) is "
            + "larger than any EBS volume");
      }
      return (int) gib;
    }
    return checked(gib, type, REQUIRED_FIELD, range);
  }

  private static void requireWithinLimit(long gib, CapacityRange range) {
    // gib <= 2^34 for any long, so gib * GIB cannot overflow.
    if (range.limitBytes() > 0 && gib * GIB > range.limitBytes()) {
      throw DriverException.outOfRange("no whole GiB fits the capacity range (required_bytes "
          + range.requiredBytes() + ", limit_bytes " + range.limitBytes() + "): EBS sizes are whole GiB; "
          + gib + " GiB is above " + LIMIT_FIELD);
    }
  }

  private static int checked(long gib, VolumeType type, String field, CapacityRange range) {
    if (gib < type.minGiB() || gib > type.maxGiB()) {
      String asked = field.equals(REQUIRED_FIELD) ? field + " " + range.requiredBytes() + " asks for " + gib + " GiB"
          : field.equals(LIMIT_FIELD) ? field + " " + range.limitBytes() + " allows at most " + gib + " GiB"
          : "the default size is " + gib + " GiB";
      throw DriverException.outOfRange(asked + "; a " + type.ec2Name() + " volume must be " + type.minGiB()
          + " to " + type.maxGiB() + " GiB");
    }
    return (int) gib;
  }
}
