package io.awscsi.core.host;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Finds out what a device holds and makes file systems on empty devices only. Data safety rests on {@link #format}:
 * it probes the device itself right before mkfs and refuses anything that is not {@link DeviceContent.Unformatted},
 * whatever the caller believed.
 *
 * <p>mkfs arguments, and why:
 * <ul>
 *   <li>ext3/ext4: {@code -F -m0}, as upstream. {@code -m0} reserves no blocks for root (a volume belongs to one
 *       workload, not to a system that must survive a full disk). {@code -F} changes nothing for safety, because
 *       mke2fs without a terminal never asks before overwriting; the probe is what protects data.
 *       {@code -E lazy_itable_init=1,nodiscard}: inode tables are zeroed by the kernel in the background instead of
 *       before the first mount (safe: uninitialised groups are flagged as such), and the device is not discarded,
 *       since a new volume has nothing to discard and discarding a multi-TiB device only delays staging. The journal
 *       is still zeroed ({@code lazy_journal_init} stays off) so no stale journal block can ever be replayed.</li>
 *   <li>xfs: {@code -K} (no discard, same reason) and no {@code -f}, so mkfs.xfs refuses on its own if it finds any
 *       signature the probe missed: a second lock on the door.</li>
 * </ul>
 */
public final class Formatter {

  private static final Logger LOG = LogManager.getLogger(Formatter.class);
  /** Exit code of blkid when no signature was found. */
  private static final int BLKID_NOTHING_FOUND = 2;
  /** Time for mkfs of a large device; lazy init keeps it far below this. */
  private static final Duration MKFS_TIMEOUT = Duration.ofMinutes(10);
  private static final Pattern XFS_VERSION = Pattern.compile("version (\\d+)\\.(\\d+)");

  private final CommandRunner runner;
  private volatile XfsVersion xfsVersion;

  public Formatter(CommandRunner runner) {
    this.runner = runner;
  }

  /** What the device holds, by low-level probing (blkid {@code -p}, which bypasses the cache). */
  public DeviceContent probe(Path device) {
    var result = runner.run(Command.of(HostTool.BLKID, "-p", "-s", "TYPE", "-s", "PTTYPE", "-o", "export",
        device.toString()).acceptingExitCodes(BLKID_NOTHING_FOUND));
    if (result.exitCode() == BLKID_NOTHING_FOUND) {
      return new DeviceContent.Unformatted();
    }
    if (!DeviceContent.namesContent(result.stdout())) {
      // blkid also answers for an empty partition: it found the partition's entry in its disk's table. Ask for every
      // tag; only the partition's own entry (PART_ENTRY_*) and nothing else means the partition itself holds nothing.
      var all = runner.run(Command.of(HostTool.BLKID, "-p", "-o", "export", device.toString())
          .acceptingExitCodes(BLKID_NOTHING_FOUND));
      if (all.exitCode() == BLKID_NOTHING_FOUND || DeviceContent.onlyPartitionEntry(all.stdout())) {
        return new DeviceContent.Unformatted();
      }
    }
    return DeviceContent.parseBlkidExport(result.stdout());
  }

  /**
   * Makes a file system on an empty device.
   *
   * @throws IllegalArgumentException for an unsupported type or options the type does not support
   * @throws IllegalStateException when the device is not empty (nothing is written)
   */
  public void format(Path device, String fsType, MkfsOptions options) {
    var type = fsType.toLowerCase(Locale.ROOT);
    var unsupported = options.unsupportedFor(type);
    if (!unsupported.isEmpty()) {
      throw new IllegalArgumentException("mkfs options " + unsupported + " are not supported for " + fsType);
    }
    var command = switch (type) {
      case "ext3" -> Command.of(HostTool.MKFS_EXT3, extArguments(device, options, false));
      case "ext4" -> Command.of(HostTool.MKFS_EXT4, extArguments(device, options, true));
      case "xfs" -> Command.of(HostTool.MKFS_XFS, xfsArguments(device, options));
      default -> throw new IllegalArgumentException("cannot make a " + fsType + " file system; "
          + "supported: ext3, ext4, xfs");
    };
    var content = probe(device);
    if (!(content instanceof DeviceContent.Unformatted)) {
      throw new IllegalStateException("refusing to format " + device + ": it already holds " + describe(content));
    }
    var result = runner.run(command.withTimeout(MKFS_TIMEOUT));
    LOG.info("made {} on {} in {} ms: `{}`", type, device, result.elapsed().toMillis(), command.commandLine());
  }

  private static List<String> extArguments(Path device, MkfsOptions options, boolean ext4) {
    var arguments = new ArrayList<>(List.of("-F", "-m0", "-E",
        ext4 ? "lazy_itable_init=1,nodiscard" : "nodiscard"));
    if (options.blockSize() != null) {
      arguments.addAll(List.of("-b", options.blockSize().toString()));
    }
    if (options.inodeSize() != null) {
      arguments.addAll(List.of("-I", options.inodeSize().toString()));
    }
    if (options.bytesPerInode() != null) {
      arguments.addAll(List.of("-i", options.bytesPerInode().toString()));
    }
    if (options.numberOfInodes() != null) {
      arguments.addAll(List.of("-N", options.numberOfInodes().toString()));
    }
    if (options.ext4BigAlloc()) {
      arguments.addAll(List.of("-O", "bigalloc"));
    }
    if (options.ext4ClusterSize() != null) {
      arguments.addAll(List.of("-C", options.ext4ClusterSize().toString()));
    }
    // A second -O adds to the first (mke2fs joins them), as upstream passes them.
    if (options.ext4EncryptionSupport()) {
      arguments.addAll(List.of("-O", "encrypt"));
    }
    arguments.add(device.toString());
    return arguments;
  }

  private List<String> xfsArguments(Path device, MkfsOptions options) {
    var arguments = new ArrayList<>(List.of("-K"));
    if (options.blockSize() != null) {
      arguments.addAll(List.of("-b", "size=" + options.blockSize()));
    }
    var inodeOptions = new ArrayList<String>();
    if (options.inodeSize() != null) {
      inodeOptions.add("size=" + options.inodeSize());
    }
    if (options.xfsLegacyFormat()) {
      var version = xfsVersion();
      var metadataOptions = new ArrayList<String>();
      // A feature the installed mkfs.xfs does not know is one it cannot turn on: leave it out.
      if (version.atLeast(5, 10)) {
        metadataOptions.addAll(List.of("bigtime=0", "inobtcount=0"));
      }
      if (version.atLeast(4, 16)) {
        metadataOptions.add("reflink=0");
      }
      if (!metadataOptions.isEmpty()) {
        arguments.addAll(List.of("-m", String.join(",", metadataOptions)));
      }
      if (version.atLeast(5, 19)) {
        inodeOptions.add("nrext64=0");
      }
    }
    if (!inodeOptions.isEmpty()) {
      arguments.addAll(List.of("-i", String.join(",", inodeOptions)));
    }
    arguments.add(device.toString());
    return arguments;
  }

  private XfsVersion xfsVersion() {
    var known = xfsVersion;
    if (known == null) {
      known = XfsVersion.parse(runner.run(Command.of(HostTool.MKFS_XFS, "-V")).stdout());
      xfsVersion = known;
    }
    return known;
  }

  /** The version printed by {@code mkfs.xfs -V}, e.g. {@code mkfs.xfs version 6.1.0}. */
  record XfsVersion(int major, int minor) {
    static XfsVersion parse(String output) {
      var matcher = XFS_VERSION.matcher(output);
      if (!matcher.find()) {
        throw new IllegalStateException("cannot read the version of mkfs.xfs from: "
            + CommandException.oneLine(output));
      }
      return new XfsVersion(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)));
    }

    boolean atLeast(int wantedMajor, int wantedMinor) {
      return major > wantedMajor || (major == wantedMajor && minor >= wantedMinor);
    }
  }

  static String describe(DeviceContent content) {
    return switch (content) {
      case DeviceContent.Unformatted u -> "nothing";
      case DeviceContent.FileSystem(var type) -> "a " + type + " file system";
      case DeviceContent.PartitionTable(var type) -> "a " + type + " partition table";
    };
  }
}
