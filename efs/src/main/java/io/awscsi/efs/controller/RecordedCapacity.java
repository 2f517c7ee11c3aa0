package io.awscsi.efs.controller;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CapacityRange;

/**
 * EFS does not enforce capacity, so a volume's capacity is what its first CreateVolume asked for, recorded with the
 * volume (an access point tag, the efs-dir ledger). A repeated CreateVolume with a range that the recorded capacity
 * does not satisfy is AlreadyExists, as the CSI spec requires for the same name with an incompatible capacity.
 */
final class RecordedCapacity {

  private RecordedCapacity() {}

  /** What CreateVolume reports for a new volume: the required bytes, else the limit, else 0 (unknown). */
  static long requested(CapacityRange range) {
    return range.requiredBytes() > 0 ? range.requiredBytes() : range.limitBytes();
  }

  /**
   * Checks a recorded capacity against a repeated request.
   *
   * @throws DriverException AlreadyExists naming both
   */
  static void requireCompatible(String volumeName, long recorded, CapacityRange range) {
    boolean enough = recorded >= range.requiredBytes();
    boolean withinLimit = range.limitBytes() == 0 || recorded <= range.limitBytes();
    if (!enough || !withinLimit) {
      throw DriverException.alreadyExists("volume " + volumeName + " already exists with " + recorded + " bytes, "
          + "which does not fit the requested range (required " + range.requiredBytes() + ", limit "
          + range.limitBytes() + "); use another name or the original capacity");
    }
  }
}
