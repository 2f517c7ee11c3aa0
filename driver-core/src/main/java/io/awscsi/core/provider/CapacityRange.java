package io.awscsi.core.provider;

/** Requested capacity in bytes; 0 means "not set" for either bound, as in the CSI spec. */
public record CapacityRange(long requiredBytes, long limitBytes) {

  public static final CapacityRange UNSPECIFIED = new CapacityRange(0, 0);

  public CapacityRange {
    if (requiredBytes < 0 || limitBytes < 0) {
      throw new IllegalArgumentException("capacity bounds must not be negative");
    }
  }

  public boolean isSet() {
    return requiredBytes > 0 || limitBytes > 0;
  }
}
