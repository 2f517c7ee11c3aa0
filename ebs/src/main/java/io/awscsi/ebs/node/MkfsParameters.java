package io.awscsi.ebs.node;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.MkfsOptions;
import java.util.Locale;
import java.util.Map;

/**
 * mkfs options from the volume context. The controller copies the StorageClass keys into it; keys are matched
 * without regard to case because upstream lower-cases parameter keys and static PVs are written by hand.
 */
final class MkfsParameters {

  static final String BLOCK_SIZE = "blockSize";
  static final String INODE_SIZE = "inodeSize";
  static final String BYTES_PER_INODE = "bytesPerInode";
  static final String NUMBER_OF_INODES = "numberOfInodes";
  static final String EXT4_BIG_ALLOC = "ext4BigAlloc";
  static final String EXT4_CLUSTER_SIZE = "ext4ClusterSize";
  static final String EXT4_ENCRYPTION_SUPPORT = "ext4EncryptionSupport";

  private MkfsParameters() {}

  static MkfsOptions parse(Map<String, String> volumeContext, String fsType, boolean legacyXfs) {
    var options = new MkfsOptions(
        integer(volumeContext, BLOCK_SIZE),
        integer(volumeContext, INODE_SIZE),
        longValue(volumeContext, BYTES_PER_INODE),
        longValue(volumeContext, NUMBER_OF_INODES),
        bool(volumeContext, EXT4_BIG_ALLOC),
        integer(volumeContext, EXT4_CLUSTER_SIZE),
        bool(volumeContext, EXT4_ENCRYPTION_SUPPORT),
        legacyXfs);
    var unsupported = options.unsupportedFor(fsType);
    if (!unsupported.isEmpty()) {
      throw DriverException.invalidArgument("volume_context." + unsupported.getFirst(), "volume context keys "
          + unsupported + " do not apply to " + fsType + " file systems; remove them from the StorageClass or use "
          + "another fsType");
    }
    return options;
  }

  private static String value(Map<String, String> context, String key) {
    for (var entry : context.entrySet()) {
      if (entry.getKey().toLowerCase(Locale.ROOT).equals(key.toLowerCase(Locale.ROOT))) {
        return entry.getValue().strip();
      }
    }
    return null;
  }

  private static Integer integer(Map<String, String> context, String key) {
    var number = longValue(context, key);
    if (number != null && number > Integer.MAX_VALUE) {
      throw DriverException.invalidArgument("volume_context." + key, key + " is too large: " + number);
    }
    return number == null ? null : number.intValue();
  }

  private static Long longValue(Map<String, String> context, String key) {
    var text = value(context, key);
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      long number = Long.parseLong(text);
      if (number <= 0) {
        throw new NumberFormatException();
      }
      return number;
    } catch (NumberFormatException e) {
      throw DriverException.invalidArgument("volume_context." + key, key + " must be a positive whole number, got '"
          + text + "'");
    }
  }

  private static boolean bool(Map<String, String> context, String key) {
    var text = value(context, key);
    if (text == null || text.isEmpty()) {
      return false;
    }
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw DriverException.invalidArgument("volume_context." + key, key + " must be true or false, got '"
          + text + "'");
    };
  }
}
