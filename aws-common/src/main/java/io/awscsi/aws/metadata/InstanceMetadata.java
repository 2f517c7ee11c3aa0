package io.awscsi.aws.metadata;

import java.util.Objects;
import java.util.Optional;

/**
 * What the node knows about the EC2 instance it runs on, read once at startup from IMDS or the Kubernetes Node.
 *
 * @param availabilityZoneId e.g. {@code use1-az4}; null when the source does not give it
 * @param eniCount network interfaces attached at the time of reading (they share attachment slots with EBS volumes
 *     on most Nitro types)
 * @param ebsBlockDeviceMappingCount EBS volumes in the boot-time block device mapping, the root volume not counted
 * @param outpostArn null unless the instance runs on an Outpost
 */
public record InstanceMetadata(
    String instanceId,
    String instanceType,
    String region,
    String availabilityZone,
    String availabilityZoneId,
    int eniCount,
    int ebsBlockDeviceMappingCount,
    OutpostArn outpostArn) {

  public InstanceMetadata {
    requireText(instanceId, "instanceId");
    requireText(instanceType, "instanceType");
    requireText(region, "region");
    requireText(availabilityZone, "availabilityZone");
    if (availabilityZoneId != null && availabilityZoneId.isBlank()) {
      availabilityZoneId = null;
    }
    if (eniCount < 0 || ebsBlockDeviceMappingCount < 0) {
      throw new IllegalArgumentException(
          "negative count: eniCount=" + eniCount + ", ebsBlockDeviceMappingCount=" + ebsBlockDeviceMappingCount);
    }
  }

  public Optional<String> zoneId() {
    return Optional.ofNullable(availabilityZoneId);
  }

  public Optional<OutpostArn> outpost() {
    return Optional.ofNullable(outpostArn);
  }

  /** A copy with a fresh ENI count (upstream re-reads it from IMDS on every NodeGetInfo). */
  public InstanceMetadata withEniCount(int eniCount) {
    return new InstanceMetadata(
        instanceId,
        instanceType,
        region,
        availabilityZone,
        availabilityZoneId,
        eniCount,
        ebsBlockDeviceMappingCount,
        outpostArn);
  }

  private static void requireText(String value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " is blank");
    }
  }
}
