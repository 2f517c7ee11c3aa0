package io.awscsi.emulation;

import io.awscsi.core.host.LoopDevices;
import io.awscsi.core.host.ProcessCommandRunner;
import io.awscsi.core.provider.ControllerProvider;
import io.awscsi.ebs.node.VolumeDeviceLocator;
import io.awscsi.efs.mount.EfsMountBackend;
import io.awscsi.emulation.ebs.LoopDeviceBackend;
import io.awscsi.emulation.ebs.LoopMirroredController;
import io.awscsi.emulation.efs.LocalDirectoryMountBackend;
import io.awscsi.launcher.DriverSeams;
import io.awscsi.launcher.FlagTable;
import io.awscsi.launcher.FlagTable.Flag;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the emulated driver puts in place of EC2's attachments and EFS's mounts, from its own flags.
 *
 * @param loopStateDir {@code --device-backend loop}: attached EBS volumes are loop devices over sparse files in
 *     this directory; empty: the host's devices ({@code nvme}, the default)
 * @param efsLocalRoot {@code --efs-mount-backend local}: each EFS file system is a directory below this root,
 *     bind-mounted; empty: efs-utils (the default)
 */
public record EmulationOptions(Optional<Path> loopStateDir, Optional<Path> efsLocalRoot) {

  static final Path DEFAULT_LOOP_STATE_DIR = Path.of("/var/lib/aws-csi-driver/loop");
  static final Path DEFAULT_EFS_LOCAL_ROOT = Path.of("/var/lib/aws-csi-driver/efs-local");
  /** The loop backend links a device before ControllerPublishVolume answers: no attachment is still on its way. */
  private static final Duration LOOP_DEVICE_WAIT = Duration.ofSeconds(3);

  private static final String GROUP = "Emulation (in place of EC2's attachments and EFS's mounts)";
  /** The emulated driver's own flags; every other flag is the serving driver's. */
  public static final FlagTable FLAGS = new FlagTable("aws-csi-driver emulated", List.of(
      new Flag("device-backend", "nvme|loop", "where attached EBS volumes appear (loop: loop devices over sparse"
          + " files, attached by this driver's or another's controller through the shared state directory)", GROUP),
      new Flag("loop-state-dir", "DIR", "the loop backend's backing files (default " + DEFAULT_LOOP_STATE_DIR + ")",
          GROUP),
      new Flag("efs-mount-backend", "efs-utils|local", "how EFS file systems are mounted (local: bind mounts of a"
          + " directory per file system)", GROUP),
      new Flag("efs-local-root", "DIR", "the local backend's file systems (default " + DEFAULT_EFS_LOCAL_ROOT + ")",
          GROUP)));

  /** Both stand-ins, as the local runtime and the test harnesses run them. */
  public static EmulationOptions both(Path loopStateDir, Path efsLocalRoot) {
    return new EmulationOptions(Optional.of(loopStateDir), Optional.of(efsLocalRoot));
  }

  /** The emulation flags taken out of a command line, and the rest of it (the serving driver's flags). */
  public record Split(EmulationOptions options, String[] rest) {}

  /** Takes this command's flags ({@code --flag value} or {@code --flag=value}) out of {@code args}. */
  public static Split split(String[] args) {
    List<String> rest = new ArrayList<>();
    String device = "nvme";
    String mount = "efs-utils";
    Path loopDir = DEFAULT_LOOP_STATE_DIR;
    Path efsRoot = DEFAULT_EFS_LOCAL_ROOT;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String name = arg.startsWith("--") ? arg.substring(2).split("=", 2)[0] : "";
      if (FLAGS.flags().stream().noneMatch(f -> f.name().equals(name))) {
        rest.add(arg);
        continue;
      }
      String value;
      if (arg.contains("=")) {
        value = arg.substring(arg.indexOf('=') + 1);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new IllegalArgumentException("--" + name + " needs a value");
      }
      switch (name) {
        case "device-backend" -> device = oneOf(name, value, "nvme", "loop");
        case "efs-mount-backend" -> mount = oneOf(name, value, "efs-utils", "local");
        case "loop-state-dir" -> loopDir = Path.of(value);
        default -> efsRoot = Path.of(value);
      }
    }
    return new Split(new EmulationOptions(device.equals("loop") ? Optional.of(loopDir) : Optional.empty(),
        mount.equals("local") ? Optional.of(efsRoot) : Optional.empty()), rest.toArray(String[]::new));
  }

  private static String oneOf(String flag, String value, String... allowed) {
    String v = value.strip();
    if (!List.of(allowed).contains(v)) {
      throw new IllegalArgumentException("--" + flag + " must be " + String.join("|", allowed) + ", got " + value);
    }
    return v;
  }

  /**
   * The seams of each driver the composition root builds: an EBS driver's controller mirrors attachments into loop
   * devices and its node finds them there; an EFS driver mounts local directories.
   *
   * @param retention what the loop backend does with its volumes at shutdown: PERSISTENT for a driver process (they
   *     outlive it, as EC2 attachments do), THROW_AWAY for a run whose emulated AWS lives no longer than it
   */
  public DriverSeams.Opener opener(LoopDeviceBackend.Retention retention) {
    return options -> switch (options.driver()) {
      case EBS -> loopStateDir.<DriverSeams>map(dir -> new LoopAttachments(LoopDeviceBackend.open(dir,
          new LoopDevices(ProcessCommandRunner.create()), retention))).orElse(DriverSeams.NONE);
      case EFS -> efsLocalRoot.<DriverSeams>map(LocalDirectories::new).orElse(DriverSeams.NONE);
    };
  }

  /** EBS attachments as loop devices: the controller mirrors them, the node finds them. */
  private record LoopAttachments(LoopDeviceBackend backend) implements DriverSeams {
    @Override
    public ControllerProvider controller(ControllerProvider built) {
      return new LoopMirroredController(built, backend);
    }

    @Override
    public Optional<VolumeDeviceLocator> ebsDeviceLocator() {
      return Optional.of(backend.locator(LOOP_DEVICE_WAIT));
    }

    @Override
    public void close() {
      backend.close();
    }
  }

  /** EFS file systems as directories below a root, bind-mounted. */
  private record LocalDirectories(Path root) implements DriverSeams {
    @Override
    public Optional<EfsMountBackend.Factory> efsMountBackend() {
      return Optional.of(LocalDirectoryMountBackend.factory(root));
    }
  }
}
