package io.awscsi.core.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Sizes of mounted file systems and block devices. */
public final class FsStats {

  private final CommandRunner runner;
  private final Path sysDevBlock;

  /** Reads device sizes from {@code /sys/dev/block}, falling back to blockdev. */
  public FsStats(CommandRunner runner) {
    this(runner, Path.of("/sys/dev/block"));
  }

  public FsStats(CommandRunner runner, Path sysDevBlock) {
    this.runner = runner;
    this.sysDevBlock = sysDevBlock;
  }

  /**
   * Usage of the file system mounted at (or containing) the path. Total and used count every block; available is
   * what a non-root writer can still use (reserved blocks excluded), which is what the kubelet reports to users.
   */
  public FileSystemUsage usage(Path path) {
    // %S fundamental block size, %b total blocks, %f free blocks, %a blocks available to non-root,
    // %c total inodes, %d free inodes
    var output = runner.run(Command.of(HostTool.STAT, "-f", "-c", "%S %b %f %a %c %d", path.toString())).stdout();
    return parseStatFs(output);
  }

  static FileSystemUsage parseStatFs(String output) {
    var fields = output.strip().split("\\s+");
    if (fields.length != 6) {
      throw new IllegalStateException("unexpected output of stat -f: " + CommandException.oneLine(output));
    }
    long[] numbers = new long[fields.length];
    for (int i = 0; i < fields.length; i++) {
      try {
        numbers[i] = Long.parseLong(fields[i]);
      } catch (NumberFormatException e) {
        throw new IllegalStateException("unexpected output of stat -f: " + CommandException.oneLine(output), e);
      }
    }
    long blockSize = numbers[0];
    long blocks = numbers[1];
    long free = numbers[2];
    long available = numbers[3];
    long inodes = numbers[4];
    long freeInodes = numbers[5];
    return new FileSystemUsage(blocks * blockSize, (blocks - free) * blockSize, available * blockSize, inodes,
        inodes - freeInodes, freeInodes);
  }

  /**
   * Size of a block device in bytes, as the kernel knows it now (after a resize it is the new size). Read from sysfs
   * ({@code /sys/dev/block/<major>:<minor>/size}, in 512-byte sectors whatever the logical block size), which costs
   * no process; where sysfs does not have the device, {@code blockdev --getsize64} answers the same from the same
   * kernel value.
   */
  public long deviceSize(Path device) {
    try {
      var sectors = Files.readString(sysDevBlock.resolve(DeviceNumbers.ofDeviceFile(device)).resolve("size")).strip();
      return Long.parseLong(sectors) * 512;
    } catch (IOException | NumberFormatException | UnsupportedOperationException | ClassCastException e) {
      return deviceSizeFromBlockdev(device);
    }
  }

  /** {@code blockdev --getsize64}: the size through the BLKGETSIZE64 ioctl. */
  long deviceSizeFromBlockdev(Path device) {
    var output = runner.run(Command.of(HostTool.BLOCKDEV, "--getsize64", device.toString())).stdout().strip();
    try {
      return Long.parseLong(output);
    } catch (NumberFormatException e) {
      throw new IllegalStateException("unexpected output of blockdev --getsize64 " + device + ": " + output, e);
    }
  }
}
