package io.awscsi.core.host;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Grows file systems to the size of their device after the volume was enlarged. ext3/ext4 can grow online
 * (resize2fs on the device while mounted; needs CAP_SYS_RESOURCE) or offline (after a forced fsck); xfs grows only
 * online (xfs_growfs on the mount point).
 */
public final class FsResizer {

  private static final Logger LOG = LogManager.getLogger(FsResizer.class);
  private static final Pattern EXT_BLOCK_COUNT = Pattern.compile("(?m)^Block count:\\s+(\\d+)");
  private static final Pattern EXT_BLOCK_SIZE = Pattern.compile("(?m)^Block size:\\s+(\\d+)");
  private static final Pattern XFS_DATA = Pattern.compile("(?m)^data\\s+=\\s+bsize=(\\d+)\\s+blocks=(\\d+)");
  private static final Duration RESIZE_TIMEOUT = Duration.ofMinutes(10);

  private final CommandRunner runner;
  private final FsStats stats;

  public FsResizer(CommandRunner runner, FsStats stats) {
    this.runner = runner;
    this.stats = stats;
  }

  /** Size and block size of the file system itself, as its superblock says. */
  public record FileSystemSize(long bytes, long blockSize) {}

  /**
   * Whether the device has grown past its file system by more than one block (the slack mkfs leaves at the end is
   * smaller than a block, so "bigger by one block or more" means the volume was enlarged).
   *
   * @param mountPath where the file system is mounted; needed for xfs, may be {@code null} for ext
   */
  public boolean needsResize(Path device, Path mountPath, String fsType) {
    var deviceSize = stats.deviceSize(device);
    var fileSystem = fileSystemSize(device, mountPath, fsType);
    return deviceSize > fileSystem.bytes() + fileSystem.blockSize();
  }

  /** The size recorded in the file system's superblock. */
  public FileSystemSize fileSystemSize(Path device, Path mountPath, String fsType) {
    return switch (family(fsType)) {
      case EXT -> parseDumpe2fs(runner.run(Command.of(HostTool.DUMPE2FS, "-h", device.toString())).stdout());
      case XFS -> parseXfsInfo(runner.run(Command.of(HostTool.XFS_INFO,
          (mountPath != null ? mountPath : device).toString())).stdout());
    };
  }

  /**
   * Grows a mounted file system to fill its device.
   *
   * @throws OnlineResizeNotPermittedException when the kernel refuses an online ext3/ext4 resize
   */
  public void resizeOnline(Path device, Path mountPath, String fsType) {
    var result = switch (family(fsType)) {
      case EXT -> resize2fsOnline(device, mountPath);
      case XFS -> runner.run(Command.of(HostTool.XFS_GROWFS, "-d", mountPath.toString()).withTimeout(RESIZE_TIMEOUT));
    };
    LOG.info("grew the {} file system on {} (mounted at {}) in {} ms", fsType, device, mountPath,
        result.elapsed().toMillis());
  }

  private CommandResult resize2fsOnline(Path device, Path mountPath) {
    try {
      return runner.run(Command.of(HostTool.RESIZE2FS, device.toString()).withTimeout(RESIZE_TIMEOUT));
    } catch (CommandException.Failed e) {
      // resize2fs prints "Permission denied to resize filesystem" when the ioctl fails with EPERM.
      var diagnostics = e.diagnostics();
      if (diagnostics.contains("Permission denied to resize") || diagnostics.contains("Operation not permitted")) {
        throw new OnlineResizeNotPermittedException("the kernel refused to grow the mounted file system on " + device
            + " (at " + mountPath + "): online ext4 resize needs CAP_SYS_RESOURCE; grant it to the node plugin, or "
            + "unstage the volume so it is grown offline at the next stage (" + e.getMessage() + ")", e);
      }
      throw e;
    }
  }

  /**
   * Grows an unmounted ext3/ext4 file system: resize2fs insists on a forced check first, so {@code e2fsck -f -p}
   * runs before it (preen mode only fixes what is safe to fix unattended; anything else fails with its report).
   *
   * @throws IllegalArgumentException for xfs, which can only grow while mounted
   */
  public void resizeOffline(Path device, String fsType) {
    if (family(fsType) != Kind.EXT) {
      throw new IllegalArgumentException(fsType + " can only grow while mounted");
    }
    // 1: errors corrected, 2: corrected and the (root) system should reboot; both leave a consistent file system.
    runner.run(Command.of(HostTool.E2FSCK, "-f", "-p", device.toString())
        .acceptingExitCodes(1, 2).withTimeout(RESIZE_TIMEOUT));
    var result = runner.run(Command.of(HostTool.RESIZE2FS, device.toString()).withTimeout(RESIZE_TIMEOUT));
    LOG.info("grew the unmounted {} file system on {} in {} ms", fsType, device, result.elapsed().toMillis());
  }

  static FileSystemSize parseDumpe2fs(String output) {
    var count = EXT_BLOCK_COUNT.matcher(output);
    var size = EXT_BLOCK_SIZE.matcher(output);
    if (!count.find() || !size.find()) {
      throw new IllegalStateException("dumpe2fs output has no block count or block size: "
          + CommandException.oneLine(output));
    }
    long blockSize = Long.parseLong(size.group(1));
    return new FileSystemSize(Long.parseLong(count.group(1)) * blockSize, blockSize);
  }

  static FileSystemSize parseXfsInfo(String output) {
    var data = XFS_DATA.matcher(output);
    if (!data.find()) {
      throw new IllegalStateException("xfs_info output has no data section: " + CommandException.oneLine(output));
    }
    long blockSize = Long.parseLong(data.group(1));
    return new FileSystemSize(Long.parseLong(data.group(2)) * blockSize, blockSize);
  }

  private enum Kind { EXT, XFS }

  private static Kind family(String fsType) {
    return switch (fsType.toLowerCase(Locale.ROOT)) {
      case "ext2", "ext3", "ext4" -> Kind.EXT;
      case "xfs" -> Kind.XFS;
      default -> throw new IllegalArgumentException("cannot resize a " + fsType + " file system; supported: "
          + "ext3, ext4, xfs");
    };
  }
}
