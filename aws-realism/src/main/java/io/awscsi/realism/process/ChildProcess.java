package io.awscsi.realism.process;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * A server process started for tests or the local runtime, with its output in a log file. It is stopped (with its
 * descendants) by {@link #stop()}, and by a JVM shutdown hook if the owner never closed it, so no process outlives
 * the JVM that started it.
 */
final class ChildProcess {

  private static final Logger LOG = LogManager.getLogger(ChildProcess.class);
  private static final Set<ChildProcess> RUNNING = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("child-process-reaper").unstarted(
        () -> List.copyOf(RUNNING).forEach(ChildProcess::stop)));
  }

  private final String name;
  private final Process process;
  private final Path log;

  private ChildProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  static ChildProcess start(String name, List<String> command, Path workingDirectory,
                            Map<String, String> environment) {
    try {
      Path log = Files.createTempFile(name + "-", ".log");
      var builder = new ProcessBuilder(command);
      builder.environment().putAll(environment);
      Process process = builder
          .directory(workingDirectory == null ? null : workingDirectory.toFile())
          .redirectErrorStream(true)
          .redirectOutput(log.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .start();
      var child = new ChildProcess(name, process, log);
      RUNNING.add(child);
      LOG.debug("started {} (pid {}): {}", name, process.pid(), String.join(" ", command));
      return child;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + " (" + String.join(" ", command) + ")", e);
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** The last lines the process wrote, for error messages. */
  String outputTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "(no output: " + e.getMessage() + ")";
    }
  }

  /** Terminates the process and its descendants, waits for them, and deletes the log. Idempotent. */
  void stop() {
    stop(Duration.ofSeconds(5));
  }

  /** As {@link #stop()}, killing the process once {@code grace} has passed after SIGTERM. */
  void stop(Duration grace) {
    RUNNING.remove(this);
    List<ProcessHandle> descendants = process.descendants().toList();
    process.destroy();
    descendants.forEach(ProcessHandle::destroy);
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
      for (ProcessHandle child : descendants) {
        child.onExit().get(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      descendants.forEach(ProcessHandle::destroyForcibly);
    }
    try {
      Files.deleteIfExists(log);
    } catch (IOException e) {
      LOG.debug("cannot delete {} log {}: {}", name, log, e.getMessage());
    }
  }
}
