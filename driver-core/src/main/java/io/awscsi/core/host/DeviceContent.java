package io.awscsi.core.host;

import java.util.HashMap;
import java.util.Map;

/** What a block device holds, as blkid sees it with low-level probing. Only {@link Unformatted} may be formatted. */
public sealed interface DeviceContent {

  /** No file-system, partition-table or other signature: a new volume. */
  record Unformatted() implements DeviceContent {}

  /** A file system (or other recognised signature such as swap or LVM) of this type. */
  record FileSystem(String type) implements DeviceContent {}

  /** A partition table of this type ({@code dos}, {@code gpt}): the data is in partitions. */
  record PartitionTable(String type) implements DeviceContent {}

  /**
   * Parses {@code blkid -p -s TYPE -s PTTYPE -o export} output. An exit code of 2 (nothing found) is the caller's
   * {@link Unformatted}; output that names neither a type nor a partition table is not taken as empty, because a
   * device we do not understand must never be formatted.
   */
  static DeviceContent parseBlkidExport(String output) {
    var tags = tags(output);
    if (tags.containsKey("PTTYPE")) {
      return new PartitionTable(tags.get("PTTYPE"));
    }
    if (tags.containsKey("TYPE")) {
      return new FileSystem(tags.get("TYPE"));
    }
    throw new IllegalStateException("blkid reported a signature but neither TYPE nor PTTYPE: "
        + CommandException.oneLine(output));
  }

  /** Whether blkid's export output names a file system or a partition table. */
  static boolean namesContent(String output) {
    var tags = tags(output);
    return tags.containsKey("TYPE") || tags.containsKey("PTTYPE");
  }

  /**
   * Whether blkid's full export output for a device says only where it sits in its disk's partition table
   * ({@code PART_ENTRY_*}) and nothing about what it holds.
   */
  static boolean onlyPartitionEntry(String output) {
    var tags = tags(output);
    tags.remove("DEVNAME");
    return !tags.isEmpty() && tags.keySet().stream().allMatch(key -> key.startsWith("PART_ENTRY_"));
  }

  private static Map<String, String> tags(String output) {
    Map<String, String> tags = new HashMap<>();
    for (var line : output.split("\n")) {
      int equals = line.indexOf('=');
      if (equals > 0) {
        tags.put(line.substring(0, equals).strip(), line.substring(equals + 1).strip());
      }
    }
    return tags;
  }
}
