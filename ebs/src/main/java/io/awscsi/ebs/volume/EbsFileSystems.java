package io.awscsi.ebs.volume;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The file systems EBS volumes are formatted with on Linux (upstream's ValidFSTypes without Windows' ntfs and the
 * journal-less ext2): the one list the controller checks at CreateVolume and the node at NodeStageVolume, so a
 * volume is never created with a file system its node would refuse.
 */
public final class EbsFileSystems {

  public static final Set<String> SUPPORTED = Set.of("ext3", "ext4", "xfs");
  public static final String DEFAULT = "ext4";

  private EbsFileSystems() {}

  /** The type in lower case, or empty when it is not one of {@link #SUPPORTED}; "" stands for the default. */
  public static Optional<String> normalize(String fsType) {
    String type = fsType == null || fsType.isBlank() ? DEFAULT : fsType.strip().toLowerCase(Locale.ROOT);
    return SUPPORTED.contains(type) ? Optional.of(type) : Optional.empty();
  }

  /** The sentence that ends a refusal. */
  public static String supportedList() {
    return "use one of ext3, ext4, xfs";
  }
}
