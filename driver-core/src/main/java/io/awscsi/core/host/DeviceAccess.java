package io.awscsi.core.host;

import java.nio.file.Path;

/**
 * The kernel's read-only flag of a block device ({@code blockdev --setro}, the BLKROSET ioctl). A read-only bind
 * mount of a device file does not stop writes to the device (the mount flag guards files, not device nodes), so a
 * block volume published read-only is made read-only at the device: the kernel then refuses every open for writing.
 */
public final class DeviceAccess {

  private final CommandRunner runner;

  public DeviceAccess(CommandRunner runner) {
    this.runner = runner;
  }

  public boolean isReadOnly(Path device) {
    var output = runner.run(Command.of(HostTool.BLOCKDEV, "--getro", device.toString())).stdout().strip();
    return output.equals("1");
  }

  public void setReadOnly(Path device, boolean readOnly) {
    runner.run(Command.of(HostTool.BLOCKDEV, readOnly ? "--setro" : "--setrw", device.toString()));
  }
}
