package io.awscsi.core.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/** Loop devices over regular files ({@code losetup}), which let a file stand in for a disk. */
public final class LoopDevices {

  private static final Logger LOG = LogManager.getLogger(LoopDevices.class);

  /**
   * A file as the kernel identifies it: the {@code major:minor} of its file system and its inode number. Unlike its
   * name it cannot be borrowed: a file of the same name and size elsewhere (another mount namespace, another
   * directory bind-mounted over this one) is another file, while this file seen through a bind mount is the same.
   */
  public record FileIdentity(String deviceNumbers, long inode) {

    /** The identity of a file (links followed). */
    public static FileIdentity of(Path file) throws IOException {
      return new FileIdentity(DeviceNumbers.ofFileSystemOf(file), (Long) Files.getAttribute(file, "unix:ino"));
    }
  }

  private final CommandRunner runner;

  public LoopDevices(CommandRunner runner) {
    this.runner = runner;
  }

  /**
   * Attaches the file to the first free loop device. Buffered I/O ({@code --direct-io=off}) so the backing file may
   * live on any file system, including tmpfs; partition scanning on, so a disk with a partition table shows its
   * partitions as an EBS NVMe disk does ({@code loop3p1}).
   *
   * @return the device, e.g. {@code /dev/loop3}
   */
  public Path attach(Path backingFile) {
    var device = runner.run(Command.of(HostTool.LOSETUP, "--find", "--show", "--direct-io=off", "--partscan",
        backingFile.toString())).stdout().strip();
    if (!device.startsWith("/dev/")) {
      throw new IllegalStateException("losetup attached " + backingFile + " but printed no device: " + device);
    }
    LOG.info("attached {} as {}", backingFile, device);
    return Path.of(device);
  }

  /** The loop device currently backed by this file, if any. */
  public Optional<Path> find(Path backingFile) {
    var output = runner.run(Command.of(HostTool.LOSETUP, "--list", "--noheadings", "--output", "NAME",
        "--associated", backingFile.toString())).stdout();
    return output.lines().map(String::strip).filter(line -> !line.isEmpty()).findFirst().map(Path::of);
  }

  /**
   * The identity of the file backing this loop device, as the kernel holds it (LOOP_GET_STATUS64's lo_device and
   * lo_inode, which losetup shows as BACK-MAJ:MIN and BACK-INO); empty when it is no attached loop device.
   */
  public Optional<FileIdentity> backingFileOf(Path device) {
    String output;
    try {
      output = runner.run(Command.of(HostTool.LOSETUP, "--list", "--noheadings", "--raw", "--output",
          "BACK-INO,BACK-MAJ:MIN", device.toString())).stdout();
    } catch (CommandException e) {
      return Optional.empty();
    }
    return parseBackingFile(output);
  }

  /**
   * losetup's raw line {@code 12 \x20\x20254:0\x20} (it pads the number and escapes the padding) as an identity;
   * empty for the blank columns of a free device.
   */
  static Optional<FileIdentity> parseBackingFile(String rawLine) {
    String[] columns = rawLine.replace("\\x20", " ").strip().split("\\s+");
    if (columns.length != 2 || !columns[0].matches("[0-9]{1,19}") || !columns[1].matches("[0-9]{1,10}:[0-9]{1,10}")) {
      return Optional.empty();
    }
    return Optional.of(new FileIdentity(columns[1], Long.parseLong(columns[0])));
  }

  /** Makes the device pick up the new size of its backing file after the file grew. */
  public void refreshSize(Path device) {
    runner.run(Command.of(HostTool.LOSETUP, "--set-capacity", device.toString()));
  }

  /**
   * Freezes the file system mounted at {@code mountPoint}: dirty data reaches the device (and so the loop device's
   * backing file), and every new write waits until {@link #thaw}.
   */
  public void freeze(Path mountPoint) {
    runner.run(Command.of(HostTool.FSFREEZE, "--freeze", mountPoint.toString()));
  }

  public void thaw(Path mountPoint) {
    runner.run(Command.of(HostTool.FSFREEZE, "--unfreeze", mountPoint.toString()));
  }

  /** Detaches the device; the backing file is untouched. */
  public void detach(Path device) {
    runner.run(Command.of(HostTool.LOSETUP, "--detach", device.toString()));
    LOG.info("detached {}", device);
  }
}
