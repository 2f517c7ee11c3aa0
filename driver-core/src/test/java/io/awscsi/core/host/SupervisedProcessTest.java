package io.awscsi.core.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.testing.LogCapture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The supervisor against small shell scripts: real processes, real exits, real process trees. */
class SupervisedProcessTest {

  private static final String LOGGER = SupervisedProcess.class.getName();
  private static final SupervisedProcess.Policy FAST = new SupervisedProcess.Policy(Duration.ofMillis(50),
      Duration.ofMillis(400), Duration.ofSeconds(30), Duration.ofSeconds(3));

  @TempDir Path dir;

  private Path script(String body) throws IOException {
    Path file = dir.resolve("amazon-efs-mount-watchdog");
    Files.writeString(file, "#!/bin/sh\n" + body + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    return file;
  }

  @Test
  void aProcessThatExitsIsStartedAgainWithOneLogLinePerRestartAndItsOutputForwarded() throws Exception {
    Path runs = dir.resolve("runs");
    Path tool = script("echo started >> " + runs + "\necho \"hello from $$\"\necho \"trouble\" >&2\nexit 3");
    AtomicInteger counted = new AtomicInteger();
    try (LogCapture log = LogCapture.start(Level.INFO);
        SupervisedProcess process = SupervisedProcess.start(HostTool.EFS_MOUNT_WATCHDOG, tool, List.of(), FAST,
            counted::incrementAndGet)) {
      await(() -> lines(runs) >= 4, "four runs", log);

      // The supervisor counts a restart just before it tells the callback: the two agree once it is in its pause.
      await(() -> counted.get() >= 3 && counted.get() == process.restarts(), "the callback told of every restart", log);
      List<String> messages = log.messages(LOGGER);
      assertThat(messages.stream().filter(m -> m.contains("exited with code 3")).count())
          .as(String.join("\n", messages)).isGreaterThanOrEqualTo(3);
      assertThat(messages).anyMatch(m -> m.matches("amazon-efs-mount-watchdog\\[\\d+]: hello from \\d+"));
      assertThat(log.events()).anyMatch(e -> e.level() == Level.WARN
          && e.message().matches("amazon-efs-mount-watchdog\\[\\d+]: trouble"));
      assertThat(messages).anyMatch(m -> m.contains("starting it again in 100 ms (restart 2)"));
    }
  }

  @Test
  void thePauseGrowsAfterShortRunsUpToTheMaximum() throws Exception {
    Path runs = dir.resolve("runs");
    Path tool = script("date +%s%N >> " + runs + "\nexit 1");
    try (LogCapture log = LogCapture.start(Level.INFO);
        SupervisedProcess process = SupervisedProcess.start(HostTool.EFS_MOUNT_WATCHDOG, tool, List.of(), FAST,
            () -> { })) {
      await(() -> lines(runs) >= 6, "six runs", log);
      List<Long> starts = Files.readAllLines(runs).stream().map(Long::parseLong).toList();
      // pauses 50, 100, 200, 400, 400 ms: the last gaps are at least the maximum, the first far shorter
      long lastGap = (starts.get(5) - starts.get(4)) / 1_000_000;
      assertThat(lastGap).isGreaterThanOrEqualTo(400);
      assertThat(log.messages(LOGGER)).anyMatch(m -> m.contains("starting it again in 400 ms (restart 5)"));
    }
  }

  @Test
  void closingStopsTheProcessAndEveryProcessItStarted() throws Exception {
    Path pids = dir.resolve("pids");
    // A child that ignores nothing and a grandchild in the background, as the watchdog starts efs-proxy processes.
    Path tool = script("sleep 300 & echo $! >> " + pids + "\n(sleep 300 & echo $! >> " + pids + "; wait) &\n"
        + "echo $$ >> " + pids + "\nwait");
    SupervisedProcess process = SupervisedProcess.start(HostTool.EFS_MOUNT_WATCHDOG, tool, List.of(), FAST, () -> { });
    await(() -> lines(pids) >= 3, "the tool and its two sleeps", null);
    List<Long> started = Files.readAllLines(pids).stream().map(Long::parseLong).toList();
    assertThat(started).allMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));

    process.close();

    for (long pid : started) {
      await(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true), "pid " + pid + " gone", null);
    }
    assertThat(process.pid()).isEmpty();
    Thread.sleep(200);
    assertThat(lines(pids)).as("not started again after close").isEqualTo(3);
  }

  @Test
  void aMissingExecutableIsReportedAndRetried() throws Exception {
    AtomicInteger counted = new AtomicInteger();
    try (SupervisedProcess process = SupervisedProcess.start(HostTool.EFS_MOUNT_WATCHDOG, dir.resolve("missing"),
        List.of(), FAST, counted::incrementAndGet)) {
      await(() -> counted.get() >= 2, "two failed starts", null);

      assertThat(process.problem()).startsWith("cannot start " + dir.resolve("missing"));
      assertThat(process.pid()).isEmpty();
    }
  }

  private static long lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  private static void await(BooleanSupplier condition, String what, LogCapture log) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what
            + (log == null ? "" : "; log:\n" + String.join("\n", log.messages(LOGGER))));
      }
      Thread.sleep(20);
    }
  }
}
