package io.awscsi.launcher;

import io.awscsi.aws.Environment;
import io.awscsi.core.logging.LoggingSetup;
import io.awscsi.launcher.kube.StartupTaintSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Runs the startup-taint removal of a node plugin in a child JVM ({@code remove-startup-taint}) instead of in the node.
 * The removal is one-off work, but the Kubernetes client it needs (fabric8, Jackson, the JDK HTTP client: ~1,900
 * classes) would stay loaded in the node for its whole life: measured, idle RSS 100 MiB instead of 62 MiB. The child
 * inherits the node's environment and output, so its lines join the node's log; it ends by itself (removed, skipped,
 * or given up after the deadline) and is stopped with the node.
 */
final class StartupTaintProcess implements AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(StartupTaintProcess.class);

  /** A small JVM for a short job: the JDK's default CDS archive, no AOT cache of the node (it trains other classes). */
  private static final List<String> JVM_FLAGS = List.of("-XX:+UseSerialGC", "-Xmx64m", "-Xss512k",
      "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1", "-XX:-UsePerfData", "-XX:TrimNativeHeapInterval=5000",
      "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow");

  private final Process process;
  private final CompletableFuture<Integer> exit;

  private StartupTaintProcess(Process process) {
    this.process = process;
    this.exit = process.onExit().thenApply(Process::exitValue);
  }

  /**
   * Starts the child unless removal does not apply here (opted out, node name unknown: logged once, no child).
   *
   * @param env the node's environment, given to the child as it is
   */
  static Optional<StartupTaintProcess> start(String driver, Map<String, String> env, LoggingSetup.Format format,
      Level level) {
    Optional<String> skip = StartupTaintSettings.skipReason(Environment.of(env));
    if (skip.isPresent()) {
      LOG.info("Startup taint removal skipped: {}", skip.get());
      return Optional.empty();
    }
    List<String> command = command(driver, format, level);
    ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
    builder.environment().clear();
    builder.environment().putAll(env);
    try {
      StartupTaintProcess child = new StartupTaintProcess(builder.start());
      child.exit.thenAccept(code -> {
        if (code == 0) {
          LOG.debug("Startup taint process {} finished", child.process.pid());
        } else {
          LOG.warn("Startup taint process {} exited with {}; the taint may still be on this node (see its lines above)",
              child.process.pid(), code);
        }
      });
      return Optional.of(child);
    } catch (IOException e) {
      LOG.warn("Cannot start the startup taint process ({}): {}; remove the taint {}/agent-not-ready by hand",
          String.join(" ", command.subList(0, 1)), e.getMessage(), driver + ".csi.aws.com");
      return Optional.empty();
    }
  }

  /** The same java and class path as this process, the subcommand and the node's log settings. */
  static List<String> command(String driver, LoggingSetup.Format format, Level level) {
    String javaBinary = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>();
    command.add(javaBinary);
    command.addAll(JVM_FLAGS);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Main.class.getName());
    command.addAll(List.of(StartupTaintCommand.NAME, "--driver", driver,
        "--log-format", format.name().toLowerCase(Locale.ROOT), "--log-level", level.name().toLowerCase(Locale.ROOT)));
    return command;
  }

  /** The child's exit code, once it has ended. */
  CompletableFuture<Integer> exit() {
    return exit;
  }

  long pid() {
    return process.pid();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }
}
