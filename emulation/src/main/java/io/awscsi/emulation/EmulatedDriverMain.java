package io.awscsi.emulation;

import io.awscsi.emulation.ebs.LoopDeviceBackend;
import io.awscsi.launcher.Main;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Map;

/**
 * {@code aws-csi-driver emulated}: the driver as {@code aws-csi-driver serve} builds it, through the launcher's
 * composition root, with loop devices in place of EC2's attachments ({@code --device-backend loop}) and local
 * directories in place of EFS mounts ({@code --efs-mount-backend local}) on a machine that has neither: the local
 * cluster, the adversarial tests, csi-sanity, the benchmarks. Runs from lib/local (bin/aws-csi-driver puts it on
 * the class path of this command alone); a serving driver refuses these flags.
 */
public final class EmulatedDriverMain {

  private EmulatedDriverMain() {}

  public static void main(String[] args) {
    int code = run(args, System.getenv(), System.out, System.err);
    if (code != 0) {
      System.exit(code);
    }
  }

  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    EmulationOptions.Split split;
    try {
      split = EmulationOptions.split(args);
    } catch (IllegalArgumentException e) {
      err.println("aws-csi-driver emulated: " + e.getMessage());
      return Main.EXIT_USAGE;
    }
    if (Arrays.asList(args).contains("--help")) {
      out.println(EmulationOptions.FLAGS.synopsis() + " [serve flags]");
      out.println(EmulationOptions.FLAGS.help());
    }
    // The volumes of a driver process outlive it, as EC2 attachments do: a restarted node finds them again.
    return Main.serve(split.rest(), env, out, err, split.options().opener(LoopDeviceBackend.Retention.PERSISTENT));
  }
}
