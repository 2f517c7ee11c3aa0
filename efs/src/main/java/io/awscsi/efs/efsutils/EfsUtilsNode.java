package io.awscsi.efs.efsutils;

import io.awscsi.core.host.HostTool;
import io.awscsi.core.host.SupervisedProcess;
import io.awscsi.core.metrics.MetricsRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Objects;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * efs-utils on an EFS node, as upstream's node runs it: before anything is mounted its directories are prepared and
 * its configuration written; then {@code amazon-efs-mount-watchdog} runs for the node's whole life, started again
 * whenever it exits. The watchdog starts the TLS proxy of a mount again when it is gone (after a plugin restart every
 * proxy is gone: they ran in the old container), renews the mounts' certificates and cleans up after unmounts, so
 * without it every TLS mount of the node would hang after a plugin restart.
 */
public final class EfsUtilsNode implements AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(EfsUtilsNode.class);

  /**
   * @param watchdog the watchdog executable ({@code --efs-mount-watchdog-path}, else found on the search path)
   */
  public record Options(EfsUtilsDirectories directories, EfsUtilsConfig config, Path watchdog,
      SupervisedProcess.Policy restartPolicy) {

    public Options {
      Objects.requireNonNull(directories, "directories");
      Objects.requireNonNull(config, "config");
      Objects.requireNonNull(watchdog, "watchdog");
      Objects.requireNonNull(restartPolicy, "restartPolicy");
    }
  }

  private final Path configFile;
  private final SupervisedProcess watchdog;

  private EfsUtilsNode(Path configFile, SupervisedProcess watchdog) {
    this.configFile = configFile;
    this.watchdog = watchdog;
  }

  /**
   * Prepares the directories, writes the configuration and starts the watchdog.
   *
   * @throws UncheckedIOException when a directory cannot be prepared or the configuration cannot be written
   * @throws IllegalArgumentException when an override names a section or key the configuration lacks
   */
  public static EfsUtilsNode start(Options options, MetricsRegistry metrics) {
    String text = options.config().render();
    Path configDir = options.directories().prepare();
    Path configFile = configDir.resolve(EfsUtilsConfig.FILE_NAME);
    write(configFile, text);
    LOG.info("efs-utils: wrote {} (region {}, FIPS {}, ports 20049-{}{})", configFile,
        options.config().region().isEmpty() ? "from instance metadata" : options.config().region(),
        options.config().fipsEnabled() ? "on" : "off", options.config().portRangeUpperBound(),
        options.config().overrides().isEmpty() ? "" : ", overrides " + options.config().overrides());
    MetricsRegistry.Counter restarts = metrics.counter("aws_efs_csi_mount_watchdog_restarts_total",
        "Times the node plugin started amazon-efs-mount-watchdog again after it exited or failed to start");
    SupervisedProcess watchdog = SupervisedProcess.start(HostTool.EFS_MOUNT_WATCHDOG, options.watchdog(), List.of(),
        options.restartPolicy(), restarts::inc);
    metrics.gauge("aws_efs_csi_mount_watchdog_running", "1 while amazon-efs-mount-watchdog runs, else 0",
        () -> watchdog.pid().isPresent() ? 1 : 0);
    return new EfsUtilsNode(configFile, watchdog);
  }

  /** Written beside and moved into place, so efs-utils never reads half a file. */
  private static void write(Path file, String text) {
    Path temporary = file.resolveSibling(file.getFileName() + ".new");
    try {
      Files.writeString(temporary, text);
      Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the efs-utils configuration " + file + ": " + e.getMessage(), e);
    }
  }

  /** The configuration file written. */
  public Path configFile() {
    return configFile;
  }

  /** The watchdog, for its state. */
  public SupervisedProcess watchdog() {
    return watchdog;
  }

  /** Why the node cannot keep TLS mounts alive: the watchdog cannot be started at all; "" otherwise. */
  public String unavailableReason() {
    String problem = watchdog.problem();
    return problem.startsWith("cannot start") ? "amazon-efs-mount-watchdog is not running (" + problem + "); TLS "
        + "mounts would hang once their proxy ends" : "";
  }

  /** Stops the watchdog and the processes it started. */
  @Override
  public void close() {
    watchdog.close();
  }
}
