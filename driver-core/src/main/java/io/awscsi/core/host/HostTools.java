package io.awscsi.core.host;

/**
 * The host tools a node plugin works with, built on one command runner. Composition roots create it once; tests
 * build it over a recording runner or over real tools.
 */
public record HostTools(
    CommandRunner runner, Mounter mounter, Formatter formatter, FsResizer resizer, FsStats stats, LoopDevices loops,
    DeviceAccess devices) {

  /** Real tools found on PATH and the system directories, the real mount table. */
  public static HostTools create() {
    return over(ProcessCommandRunner.create());
  }

  /** Everything built on this runner, reading the real mount table. */
  public static HostTools over(CommandRunner runner) {
    var stats = new FsStats(runner);
    return new HostTools(runner, LinuxMounter.create(runner), new Formatter(runner), new FsResizer(runner, stats),
        stats, new LoopDevices(runner), new DeviceAccess(runner));
  }
}
