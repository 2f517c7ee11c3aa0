package io.awscsi.launcher;

import io.awscsi.aws.Environment;
import io.awscsi.core.logging.LoggingSetup;
import io.awscsi.launcher.kube.KubernetesClientProvider;
import io.awscsi.launcher.kube.StartupTaintRemover;
import io.awscsi.launcher.kube.StartupTaintSettings;
import io.awscsi.launcher.kube.TaintRemovalOutcome;
import java.io.PrintStream;
import java.util.Map;
import org.apache.logging.log4j.Level;

/**
 * {@code aws-csi-driver remove-startup-taint --driver ebs|efs}: removes this node's startup taint once the driver is
 * registered (see {@link StartupTaintRemover}) and exits: 0 when removed, absent or skipped, 1 when it gave up. The node
 * plugin runs it as a child process ({@link StartupTaintProcess}), so the Kubernetes client never loads into the
 * long-running node.
 */
final class StartupTaintCommand {

  static final String NAME = "remove-startup-taint";

  private StartupTaintCommand() {}

  static int run(String[] args, Map<String, String> env, PrintStream err) {
    StartupTaintSettings settings;
    try {
      Flags f = Usage.REMOVE_STARTUP_TAINT.parse(args);
      settings = switch (f.string("driver", "")) {
        case "ebs" -> StartupTaintSettings.forEbs();
        case "efs" -> StartupTaintSettings.forEfs();
        default -> throw new IllegalArgumentException("--driver must be ebs or efs");
      };
      LoggingSetup.configure(
          f.string("log-format", "text").equalsIgnoreCase("json") ? LoggingSetup.Format.JSON : LoggingSetup.Format.TEXT,
          Level.toLevel(f.string("log-level", "info"), Level.INFO));
    } catch (IllegalArgumentException e) {
      err.println("aws-csi-driver " + NAME + ": " + e.getMessage());
      return Main.EXIT_USAGE;
    }
    try (KubernetesClientProvider kube = KubernetesClientProvider.fromDefaultConfig()) {
      TaintRemovalOutcome outcome = new StartupTaintRemover(settings, kube, Environment.of(env)).run();
      return outcome instanceof TaintRemovalOutcome.GaveUp ? Main.EXIT_FAILURE : 0;
    }
  }
}
