package io.awscsi.core.host;

import java.nio.file.Path;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/** Loop devices over regular files ({@code losetup}), which let a file stand in for a disk. */
public final class LoopDevices {

  private static final Logger LOG = LogManager.getLogger(LoopDevices.class);

  private final CommandRunner runner;

  public LoopDevices(CommandRunner runner) {
    this.runner = runner;
  }

  /**
   * Attaches the file to the first free loop device. Buffered I/O ({@code --direct-io=off}) so the backing file may
   * live on any file system, including tmpfs.
   *
   * @return the device, e.g. {@code /dev/loop3}
   */
  public Path attach(Path backingFile) {
    var device = runner.run(Command.of(HostTool.LOSETUP, "--find", "--show", "--direct-io=off",
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

  /** Makes the device pick up the new size of its backing file after the file grew. */
  public void refreshSize(Path device) {
    runner.run(Command.of(HostTool.LOSETUP, "--set-capacity", device.toString()));
  }

  /** Detaches the device; the backing file is untouched. */
  public void detach(Path device) {
    runner.run(Command.of(HostTool.LOSETUP, "--detach", device.toString()));
    LOG.info("detached {}", device);
  }
}
