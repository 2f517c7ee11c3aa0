package io.awscsi.core.host;

import java.nio.file.Path;

/** Sizes of mounted file systems and block devices. */
public final class FsStats {

  private final CommandRunner runner;

  public FsStats(CommandRunner runner) {
    this.runner = runner;
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

  /** Size of a block device in bytes ({@code blockdev --getsize64}); reads the current size, never a cached one. */
  public long deviceSize(Path device) {
    var output = runner.run(Command.of(HostTool.BLOCKDEV, "--getsize64", device.toString())).stdout().strip();
    try {
      return Long.parseLong(output);
    } catch (NumberFormatException e) {
      throw new IllegalStateException("unexpected output of blockdev --getsize64 " + device + ": " + output, e);
    }
  }
}
