package io.awscsi.ebs.controller;

import io.awscsi.core.errors.DriverException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The EBS volume types with the limits EC2 enforces (2026): size in GiB, provisioned IOPS (total and per GiB) and
 * gp3 throughput in MiB/s. Checking them here turns EC2's generic InvalidParameterValue into an answer that names
 * the field and the allowed range.
 */
public enum VolumeType {
  GP3("gp3", 1, 65_536, 3_000, 80_000, 500, 125, 2_000),
  GP2("gp2", 1, 16_384, 0, 0, 0, 0, 0),
  IO1("io1", 4, 16_384, 100, 64_000, 50, 0, 0),
  IO2("io2", 4, 65_536, 100, 256_000, 1_000, 0, 0),
  ST1("st1", 125, 16_384, 0, 0, 0, 0, 0),
  SC1("sc1", 125, 16_384, 0, 0, 0, 0, 0),
  STANDARD("standard", 1, 1_024, 0, 0, 0, 0, 0);

  private final String ec2Name;
  private final int minGiB;
  private final int maxGiB;
  private final int minIops;
  private final int maxIops;
  private final int maxIopsPerGiB;
  private final int minThroughput;
  private final int maxThroughput;

  VolumeType(String ec2Name, int minGiB, int maxGiB, int minIops, int maxIops, int maxIopsPerGiB, int minThroughput,
      int maxThroughput) {
    this.ec2Name = ec2Name;
    this.minGiB = minGiB;
    this.maxGiB = maxGiB;
    this.minIops = minIops;
    this.maxIops = maxIops;
    this.maxIopsPerGiB = maxIopsPerGiB;
    this.minThroughput = minThroughput;
    this.maxThroughput = maxThroughput;
  }

  public static VolumeType parse(String field, String value) {
    String wanted = value.trim().toLowerCase(Locale.ROOT);
    return Arrays.stream(values()).filter(t -> t.ec2Name.equals(wanted)).findFirst()
        .orElseThrow(() -> DriverException.invalidArgument(field, "unknown EBS volume type \"" + value
            + "\"; use one of " + Arrays.stream(values()).map(VolumeType::ec2Name).collect(Collectors.joining(", "))));
  }

  /** The type EC2 reports, or null when it is not one of these. */
  static VolumeType fromEc2(String name) {
    return Arrays.stream(values()).filter(t -> t.ec2Name.equals(name)).findFirst().orElse(null);
  }

  public String ec2Name() {
    return ec2Name;
  }

  public int minGiB() {
    return minGiB;
  }

  public int maxGiB() {
    return maxGiB;
  }

  public boolean takesIops() {
    return maxIops > 0;
  }

  public boolean takesThroughput() {
    return maxThroughput > 0;
  }

  public int minIops() {
    return minIops;
  }

  public int maxIops() {
    return maxIops;
  }

  public int maxIopsPerGiB() {
    return maxIopsPerGiB;
  }

  /** Multi-attach exists for io1 and io2; the CSI driver, like upstream, offers it for io2 only. */
  public boolean multiAttach() {
    return this == IO2;
  }

  /** OutOfRange naming {@code field} when a volume of {@code sizeGiB} cannot be of this type. */
  public void checkSize(String field, String volumeId, int sizeGiB) {
    if (sizeGiB < minGiB || sizeGiB > maxGiB) {
      throw DriverException.outOfRange(field + ": volume " + volumeId + " is " + sizeGiB + " GiB; a " + ec2Name
          + " volume must be " + minGiB + " to " + maxGiB + " GiB");
    }
  }

  /**
   * Checks provisioned IOPS against this type's range: InvalidArgument naming {@code field} when the type takes none
   * or {@code iops} is below the type's minimum or above its maximum.
   */
  public void checkIops(String field, int iops) {
    if (!takesIops()) {
      throw DriverException.invalidArgument(field, "a " + ec2Name + " volume takes no provisioned IOPS; "
          + "use io1, io2 or gp3");
    }
    if (iops < minIops || iops > maxIops) {
      throw DriverException.invalidArgument(field, ec2Name + " IOPS must be " + minIops + " to " + maxIops + "; got "
          + iops);
    }
  }

  /**
   * The IOPS EC2 accepts for {@code iops} at {@code sizeGiB}: capped at the type's IOPS-per-GiB ratio but never below
   * its baseline, as upstream caps them (a 1 GiB gp3 volume gets its baseline 3000 IOPS whatever is asked above it).
   */
  public int capIops(int iops, int sizeGiB) {
    long byCapacity = Math.max(minIops, (long) maxIopsPerGiB * sizeGiB);
    return (int) Math.min(iops, Math.min(maxIops, byCapacity));
  }

  /** InvalidArgument naming {@code field} when {@code throughput} is not allowed for this type. */
  public void checkThroughput(String field, int throughput) {
    if (!takesThroughput()) {
      throw DriverException.invalidArgument(field, "a " + ec2Name + " volume takes no throughput setting; use gp3");
    }
    if (throughput < minThroughput || throughput > maxThroughput) {
      throw DriverException.invalidArgument(field, ec2Name + " throughput must be " + minThroughput + " to "
          + maxThroughput + " MiB/s; got " + throughput);
    }
  }

  /**
   * IOPS from an IOPS-per-GiB ratio, as upstream: capped at the type's total and per-GiB maximum; raised to the
   * type's minimum only when {@code allowIncrease}, otherwise too low a product is InvalidArgument.
   */
  public int iopsFromRatio(int iopsPerGiB, int sizeGiB, boolean allowIncrease) {
    if (!takesIops()) {
      throw DriverException.invalidArgument("iopsPerGB", "a " + ec2Name + " volume takes no provisioned IOPS");
    }
    long iops = (long) iopsPerGiB * sizeGiB;
    iops = Math.min(iops, Math.min(maxIops, (long) maxIopsPerGiB * sizeGiB));
    if (iops < minIops) {
      if (!allowIncrease) {
        throw DriverException.invalidArgument("iopsPerGB", "iopsPerGB " + iopsPerGiB + " x " + sizeGiB + " GiB = "
            + iops + " IOPS is below the " + ec2Name + " minimum of " + minIops
            + "; raise iopsPerGB or set allowAutoIOPSPerGBIncrease: \"true\"");
      }
      iops = minIops;
    }
    return (int) iops;
  }
}
