package io.awscsi.core.host;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Runs host tools with {@link ProcessBuilder}: arguments are passed as separate argv entries, standard input is
 * {@code /dev/null} (so no tool can wait for an answer), output is read on virtual threads while the program runs, and
 * the program gets {@code LC_ALL=C} so its messages are the ones parsers expect.
 */
public final class ProcessCommandRunner implements CommandRunner {

  private static final Logger LOG = LogManager.getLogger(ProcessCommandRunner.class);
  /** Output beyond this is dropped; no tool we run prints more unless something is badly wrong. */
  private static final int MAX_CAPTURED_BYTES = 4 * 1024 * 1024;
  private static final List<Path> SYSTEM_DIRECTORIES =
      List.of(Path.of("/usr/local/sbin"), Path.of("/usr/local/bin"), Path.of("/usr/sbin"), Path.of("/usr/bin"),
          Path.of("/sbin"), Path.of("/bin"));

  private final List<Path> searchPath;

  /** Looks for tools on {@code PATH}, then in the usual system directories (sbin is often missing from PATH). */
  public static ProcessCommandRunner create() {
    var directories = new LinkedHashSet<Path>();
    var path = System.getenv("PATH");
    if (path != null) {
      for (var entry : path.split(File.pathSeparator)) {
        if (!entry.isBlank()) {
          directories.add(Path.of(entry));
        }
      }
    }
    directories.addAll(SYSTEM_DIRECTORIES);
    return new ProcessCommandRunner(List.copyOf(directories));
  }

  public ProcessCommandRunner(List<Path> searchPath) {
    this.searchPath = List.copyOf(searchPath);
  }

  @Override
  public CommandResult run(Command command) {
    var executable = locate(command);
    var argv = new ArrayList<String>(command.arguments().size() + 1);
    argv.add(executable.toString());
    argv.addAll(command.arguments());
    var builder = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().put("LC_ALL", "C");
    long started = System.nanoTime();
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new CommandException.NotStarted(command, e.getMessage(), e);
    }
    var stdout = new OutputCollector(process.getInputStream());
    var stderr = new OutputCollector(process.getErrorStream());
    try {
      if (!process.waitFor(command.timeout().toNanos(), TimeUnit.NANOSECONDS)) {
        killTree(process);
        throw new CommandException.TimedOut(command, command.timeout(), stderr.awaitText(Duration.ofSeconds(1)));
      }
      var result = new CommandResult(command, process.exitValue(), stdout.awaitText(Duration.ofSeconds(5)),
          stderr.awaitText(Duration.ofSeconds(5)), Duration.ofNanos(System.nanoTime() - started));
      LOG.debug("ran `{}`: exit {} in {} ms", command.commandLine(), result.exitCode(), result.elapsed().toMillis());
      if (!command.acceptedExitCodes().contains(result.exitCode())) {
        throw new CommandException.Failed(result);
      }
      return result;
    } catch (InterruptedException e) {
      killTree(process);
      Thread.currentThread().interrupt();
      throw new CommandException.NotStarted(command, "interrupted while waiting; the process was killed", e);
    }
  }

  private Path locate(Command command) {
    return find(command.tool()).orElseThrow(() -> new CommandException.NotStarted(command,
        command.tool().executable() + " is not installed (searched " + searchPath + "); install the package "
            + command.tool().imagePackage(), null));
  }

  /** Where the tool is installed on this runner's search path, the same lookup {@link #run} makes. */
  public Optional<Path> find(HostTool tool) {
    for (var directory : searchPath) {
      var candidate = directory.resolve(tool.executable());
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** The directories searched, in order. */
  public List<Path> searchPath() {
    return searchPath;
  }

  /** Descendants first: once the parent is gone they are re-parented and can no longer be found from it. */
  private static void killTree(Process process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Drains one stream on a virtual thread so a full pipe never blocks the program. */
  private static final class OutputCollector {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final Thread reader;

    OutputCollector(InputStream stream) {
      reader = Thread.ofVirtual().name("command-output").start(() -> drain(stream));
    }

    private void drain(InputStream stream) {
      var buffer = new byte[8192];
      try (stream) {
        int read;
        while ((read = stream.read(buffer)) >= 0) {
          synchronized (bytes) {
            int room = MAX_CAPTURED_BYTES - bytes.size();
            if (room > 0) {
              bytes.write(buffer, 0, Math.min(room, read));
            }
          }
        }
      } catch (IOException e) {
        // The pipe breaks when a timed-out program is killed; what was read so far is all there is.
        LOG.trace("command output stream ended: {}", e.getMessage());
      }
    }

    /**
     * The text read so far, after waiting a little for the reader to reach end of stream. A killed program's
     * grandchildren can hold the pipe open, so the wait is bounded.
     */
    String awaitText(Duration wait) throws InterruptedException {
      reader.join(wait);
      synchronized (bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
      }
    }
  }
}
