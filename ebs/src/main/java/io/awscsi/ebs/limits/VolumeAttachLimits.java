package io.awscsi.ebs.limits;

import io.awscsi.aws.metadata.InstanceMetadata;
import java.util.Objects;

/**
 * The {@code max_volumes_per_node} a node reports, computed as upstream does (pkg/driver/node.go getVolumesLimit):
 *
 * <ol>
 *   <li>an explicit {@code --volume-attach-limit} is returned as it is;
 *   <li>otherwise the instance type's limit ({@link InstanceAttachmentLimitTable}),
 *   <li>minus the reserved attachments: {@code --reserved-volume-attachments} if set, else the boot-time EBS block
 *       device mappings plus 1 for the root volume,
 *   <li>minus the ENIs beyond the first when the limit is shared with ENIs (the default 27 already allows for one),
 *   <li>floored at 1, because 0 would mean "no limit" to Kubernetes.
 * </ol>
 */
public final class VolumeAttachLimits {

  private final InstanceAttachmentLimitTable table;
  private final VolumeAttachLimitSettings settings;

  public VolumeAttachLimits(InstanceAttachmentLimitTable table, VolumeAttachLimitSettings settings) {
    this.table = Objects.requireNonNull(table, "table");
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /** With the shipped table. */
  public static VolumeAttachLimits withSettings(VolumeAttachLimitSettings settings) {
    return new VolumeAttachLimits(InstanceAttachmentLimitTable.standard(), settings);
  }

  public long maxVolumesPerNode(InstanceMetadata metadata) {
    return maxVolumesPerNode(
        metadata.instanceType(), metadata.eniCount(), metadata.ebsBlockDeviceMappingCount());
  }

  public long maxVolumesPerNode(String instanceType, int eniCount, int ebsBlockDeviceMappingCount) {
    if (settings.hasExplicitLimit()) {
      return settings.volumeAttachLimit();
    }
    AttachmentLimit limit = table.limitOf(instanceType);
    int reserved =
        settings.hasReservedAttachments()
            ? settings.reservedVolumeAttachments()
            : ebsBlockDeviceMappingCount + 1;
    long available = limit.maxAttachments() - reserved;
    if (limit.shared()) {
      available -= Math.max(0, eniCount - 1);
    }
    return Math.max(1, available);
  }
}
