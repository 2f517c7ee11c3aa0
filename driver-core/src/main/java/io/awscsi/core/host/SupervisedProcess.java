package io.awscsi.core.host;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * A long-running host tool kept running for the driver's life: started, started again after a growing pause whenever
 * it exits, its standard output and error forwarded into the driver's log one log line per output line, and stopped
 * together with the processes it started when closed.
 *
 * <p>The sibling of {@link CommandRunner} for daemons. The runner runs a tool to completion within a timeout and hands
 * back what it printed; a daemon has no timeout, its output must reach the log as it comes, and its life is the
 * driver's, which a run-to-completion call cannot express. Like the runner it only starts a {@link HostTool}.
 */
public final class SupervisedProcess implements AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(SupervisedProcess.class);
  /** A longer output line is cut: one chatty line must not flood the log. */
  private static final int MAX_LINE = 2000;

  /**
   * When to start again and how to stop.
   *
   * @param firstPause the pause before the first restart, and again once a run lasted {@code stableAfter}
   * @param maxPause the pause doubles after every short run, up to this
   * @param stableAfter a run at least this long counts as healthy: the next pause is {@code firstPause} again
   * @param stopGrace how long the process (and what it started) may take to end after SIGTERM before SIGKILL
   */
  public record Policy(Duration firstPause, Duration maxPause, Duration stableAfter, Duration stopGrace) {

    public static final Policy DEFAULT =
        new Policy(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofSeconds(5));

    public Policy {
      Objects.requireNonNull(firstPause, "firstPause");
      Objects.requireNonNull(maxPause, "maxPause");
      Objects.requireNonNull(stableAfter, "stableAfter");
      Objects.requireNonNull(stopGrace, "stopGrace");
      if (firstPause.isNegative() || firstPause.isZero() || maxPause.compareTo(firstPause) < 0) {
        throw new IllegalArgumentException("pauses must be positive with maxPause >= firstPause");
      }
    }
  }

  private final HostTool tool;
  private final List<String> argv;
  private final Policy policy;
  private final Runnable onRestart;
  private final CountDownLatch stopRequested = new CountDownLatch(1);
  private final AtomicInteger restarts = new AtomicInteger();
  private final Object lock = new Object();
  private final Thread supervisor;
  private Process current;
  private boolean stopping;
  private volatile String problem = "";

  private SupervisedProcess(HostTool tool, Path executable, List<String> arguments, Policy policy,
      Runnable onRestart) {
    this.tool = tool;
    List<String> command = new ArrayList<>(arguments.size() + 1);
    command.add(executable.toString());
    command.addAll(arguments);
    this.argv = List.copyOf(command);
    this.policy = policy;
    this.onRestart = onRestart;
    this.supervisor = Thread.ofVirtual().name("supervise-" + tool.executable()).unstarted(this::supervise);
  }

  /**
   * Starts the tool and keeps it running until {@link #close()}.
   *
   * @param executable where the tool is (found by {@link ProcessCommandRunner#find} or configured)
   * @param onRestart told once per restart: after each exit, and after each start that failed
   */
  public static SupervisedProcess start(HostTool tool, Path executable, List<String> arguments, Policy policy,
      Runnable onRestart) {
    SupervisedProcess process = new SupervisedProcess(tool, executable, arguments, policy, onRestart);
    process.supervisor.start();
    return process;
  }

  /** Why the tool is not running now ("" while it runs or before its first start). */
  public String problem() {
    return problem;
  }

  /** How often it was started again. */
  public int restarts() {
    return restarts.get();
  }

  /** The process id of the running process. */
  public OptionalLong pid() {
    synchronized (lock) {
      return current != null && current.isAlive() ? OptionalLong.of(current.pid()) : OptionalLong.empty();
    }
  }

  private void supervise() {
    Duration pause = policy.firstPause();
    String name = tool.executable();
    while (true) {
      long startedAt = System.nanoTime();
      Process process;
      try {
        process = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
      } catch (IOException e) {
        problem = "cannot start " + argv.getFirst() + ": " + e.getMessage();
        restarts.incrementAndGet();
        onRestart.run();
        LOG.warn("{} could not start ({}); trying again in {} ms", name, e.getMessage(), pause.toMillis());
        if (pausedUntilStopped(pause)) {
          return;
        }
        pause = longer(pause);
        continue;
      }
      synchronized (lock) {
        if (stopping) {
          process.destroyForcibly();
          return;
        }
        current = process;
      }
      problem = "";
      if (restarts.get() == 0) {
        LOG.info("started {} (pid {})", name, process.pid());
      }
      forward(process.getInputStream(), process.pid(), false);
      forward(process.getErrorStream(), process.pid(), true);
      int exitCode;
      try {
        exitCode = process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      Duration ran = Duration.ofNanos(System.nanoTime() - startedAt);
      synchronized (lock) {
        current = null;
        if (stopping) {
          return;
        }
      }
      if (ran.compareTo(policy.stableAfter()) >= 0) {
        pause = policy.firstPause();
      }
      problem = name + " exited with code " + exitCode + " and is being started again";
      int restart = restarts.incrementAndGet();
      onRestart.run();
      LOG.warn("{} (pid {}) exited with code {} after {} ms; starting it again in {} ms (restart {})", name,
          process.pid(), exitCode, ran.toMillis(), pause.toMillis(), restart);
      if (pausedUntilStopped(pause)) {
        return;
      }
      pause = longer(pause);
    }
  }

  private Duration longer(Duration pause) {
    Duration doubled = pause.multipliedBy(2);
    return doubled.compareTo(policy.maxPause()) > 0 ? policy.maxPause() : doubled;
  }

  /** Waits out the pause; true when a stop was asked for meanwhile. */
  private boolean pausedUntilStopped(Duration pause) {
    try {
      return stopRequested.await(pause.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  /** One log line per output line, on a virtual thread, until the process closes the stream. */
  private void forward(InputStream stream, long pid, boolean errors) {
    String prefix = tool.executable() + "[" + pid + "]: ";
    Thread.ofVirtual().name("output-" + tool.executable()).start(() -> {
      try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        String line;
        while ((line = reader.readLine()) != null) {
          if (line.isBlank()) {
            continue;
          }
          String text = line.length() <= MAX_LINE ? line : line.substring(0, MAX_LINE) + "...";
          if (errors) {
            LOG.warn("{}{}", prefix, text);
          } else {
            LOG.info("{}{}", prefix, text);
          }
        }
      } catch (IOException e) {
        LOG.trace("output of {} ended: {}", prefix, e.getMessage());
      }
    });
  }

  /**
   * Stops supervising and ends the process: SIGTERM to it and to every process it started, SIGKILL to whatever is
   * left after the grace. Its children are listed before the signal, because once it is gone they are re-parented and
   * can no longer be found from it.
   */
  @Override
  public void close() {
    Process process;
    synchronized (lock) {
      if (stopping) {
        return;
      }
      stopping = true;
      process = current;
    }
    stopRequested.countDown();
    if (process != null) {
      List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
      tree.add(process.toHandle());
      tree.forEach(ProcessHandle::destroy);
      long deadline = System.nanoTime() + policy.stopGrace().toNanos();
      for (ProcessHandle handle : tree) {
        long left = deadline - System.nanoTime();
        try {
          handle.onExit().get(Math.max(0, left), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        } catch (Exception e) {
          // still alive after the grace: killed below
        }
      }
      tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
      LOG.info("stopped {} (pid {})", tool.executable(), process.pid());
    }
    try {
      supervisor.join(policy.stopGrace());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
