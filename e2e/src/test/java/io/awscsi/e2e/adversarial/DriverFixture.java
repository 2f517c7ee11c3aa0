package io.awscsi.e2e.adversarial;

import io.awscsi.core.host.MountInfo;
import io.awscsi.local.LocalAws;
import io.awscsi.realism.RealismProfile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * The adversarial suite's fixture: emulated AWS ({@link LocalAws}: moto behind the realism layer, the IMDS emulator,
 * one instance playing this node, one EFS file system) and driver processes started from the built distribution
 * ({@link DriverDistribution}) for {@code ebs|efs} in {@code controller|node|all} mode, each on its own Unix socket
 * under one short work directory. EBS runs the loop-device backend (all EBS processes of a fixture share one loop
 * state directory, as a controller and a node share EC2's attachments), EFS the local stand-in.
 *
 * <p>Register it as a static field: {@code @RegisterExtension static final DriverFixture fx = DriverFixture.create();}.
 * It fails any test during which a driver answered INTERNAL, appends the drivers' log lines written during a failed
 * test to its failure, and at the end stops its processes, unmounts what is mounted below its work directory,
 * detaches loop devices backed by files below it and removes it: only what it created.
 */
public final class DriverFixture implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
    AfterEachCallback, TestExecutionExceptionHandler {

  /** Which driver. */
  public enum Driver { EBS, EFS }

  /** Which services the process serves, as {@code --mode} says. */
  public enum Mode { CONTROLLER, NODE, ALL }

  /** The outcome of a bounded run of the distribution's launcher ({@link #run}). */
  public record Run(int exitCode, String output) {}

  private final RealismProfile profile;
  private final Map<String, DriverProcess> processes = new LinkedHashMap<>();
  private final Map<String, Long> logOffsets = new LinkedHashMap<>();
  private LocalAws aws;
  private Path work;

  private DriverFixture(RealismProfile profile) {
    this.profile = profile;
  }

  /** Emulated AWS without latencies (the suite tests answers, not timing). */
  public static DriverFixture create() {
    return new DriverFixture(RealismProfile.instant());
  }

  public static DriverFixture withProfile(RealismProfile profile) {
    return new DriverFixture(profile);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    DriverDistribution.home(); // assemble (or find) it first: a missing build fails here with what to run
    // Short: socket paths are limited to 107 bytes.
    work = Files.createTempDirectory(Path.of("/tmp"), "adv-");
    Files.createDirectories(kubeletDir());
    aws = LocalAws.start(profile);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    logOffsets.clear();
    processes.forEach((name, p) -> logOffsets.put(name, p.logSize()));
    processes.values().forEach(DriverProcess::takeInternalAnswers);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    List<String> internal = new ArrayList<>();
    processes.forEach((name, p) -> p.takeInternalAnswers().forEach(a -> internal.add(name + " " + a)));
    if (!internal.isEmpty() && context.getExecutionException().isEmpty()) {
      throw new AssertionError("the driver answered INTERNAL (only its own bugs may): " + internal + logsOfTest());
    }
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
    AssertionError withLogs = new AssertionError(failure.getMessage() + logsOfTest(), failure);
    withLogs.setStackTrace(failure.getStackTrace());
    throw withLogs;
  }

  /** The log lines every process wrote since the test started. */
  private String logsOfTest() {
    StringBuilder b = new StringBuilder();
    processes.forEach((name, p) -> {
      String since = p.logSince(logOffsets.getOrDefault(name, 0L));
      List<String> lines = since.lines().toList();
      b.append("\n--- ").append(name).append(" log during the test (").append(p.logFile()).append(") ---\n");
      b.append(String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size())));
    });
    return b.toString();
  }

  /** Starts a driver process and waits until it is ready; see {@link #process} for the arguments. */
  public DriverProcess start(Driver driver, Mode mode, String... extraArgs) {
    return process(driver, mode, extraArgs).start();
  }

  /**
   * A driver process, not started: {@code aws-csi-driver emulated}, {@code --driver}, {@code --mode}, {@code --endpoint} on {@code <work>/<name>.sock}
   * and, unless {@code extraArgs} choose their own, the loop-device backend (EBS) or the local stand-in (EFS) under
   * the work directory, {@code --kubelet-dir} {@link #kubeletDir()}, then {@code extraArgs}. The name is {@code ebs-node}, {@code efs-all}, ... (a counter added
   * when one is taken).
   */
  public DriverProcess process(Driver driver, Mode mode, String... extraArgs) {
    String base = driver.name().toLowerCase(Locale.ROOT) + "-" + mode.name().toLowerCase(Locale.ROOT);
    String name = base;
    for (int i = 2; processes.containsKey(name); i++) {
      name = base + "-" + i;
    }
    List<String> extras = List.of(extraArgs);
    // The emulated driver (lib/local): the serving one has no loop devices or local directories.
    List<String> command = new ArrayList<>(List.of(DriverDistribution.launcher().toString(), "emulated",
        "--driver", driver.name().toLowerCase(Locale.ROOT), "--mode", mode.name().toLowerCase(Locale.ROOT),
        "--endpoint", "unix://" + socketOf(name), "--log-level", "info", "--shutdown-grace", "5s"));
    if (driver == Driver.EBS && !extras.contains("--device-backend")) {
      command.addAll(List.of("--device-backend", "loop", "--loop-state-dir", loopStateDir().toString()));
    }
    if (driver == Driver.EFS && !extras.contains("--efs-mount-backend")) {
      command.addAll(List.of("--efs-mount-backend", "local", "--efs-local-root", efsLocalRoot().toString()));
    }
    if (!extras.contains("--kubelet-dir")) {
      command.addAll(List.of("--kubelet-dir", kubeletDir().toString()));
    }
    if (driver == Driver.EFS && !extras.contains("--efs-work-dir")) {
      command.addAll(List.of("--efs-work-dir", work.resolve("efs-pv").toString()));
    }
    command.addAll(extras);
    DriverProcess p = new DriverProcess(name, command, environment(), socketOf(name), work.resolve(name + ".log"));
    processes.put(name, p);
    logOffsets.put(name, 0L);
    return p;
  }

  /**
   * Runs the distribution's launcher with these arguments (and the drivers' environment) to its exit, bounded, for
   * starts that must be refused. Its output is returned, not kept in a process log.
   */
  public Run run(Duration timeout, String... args) {
    List<String> command = new ArrayList<>();
    command.add(DriverDistribution.launcher().toString());
    command.addAll(List.of(args));
    try {
      Path out = Files.createTempFile(work, "run-", ".log");
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
      pb.environment().putAll(environment());
      Process p = pb.start();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError(String.join(" ", command) + " did not exit within " + timeout + ":\n"
            + Files.readString(out));
      }
      return new Run(p.exitValue(), Files.readString(out));
    } catch (IOException e) {
      throw new AssertionError("cannot run " + command + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** The environment of the driver processes: emulated AWS's endpoints, IMDS, no startup-taint watcher. */
  public Map<String, String> environment() {
    Map<String, String> env = new LinkedHashMap<>(aws.driverEnvironment());
    env.put("JAVA_HOME", System.getProperty("java.home"));
    // No AOT cache in a test distribution; the launcher skips a missing one anyway.
    env.put("AWS_CSI_AOT_CACHE", "none");
    return env;
  }

  public Path socketOf(String processName) {
    return work.resolve(processName + ".sock");
  }

  /** The loop-device backend's state directory, shared by every EBS process of this fixture. */
  public Path loopStateDir() {
    return work.resolve("loop");
  }

  /** The EFS local stand-in's root, shared by every EFS process of this fixture. */
  public Path efsLocalRoot() {
    return work.resolve("efs-root");
  }

  /**
   * The directory that plays the kubelet's for every process of this fixture ({@code --kubelet-dir}): staging and
   * target paths lie below it.
   */
  public Path kubeletDir() {
    return work.resolve("kubelet");
  }

  /** A fresh, empty directory below the kubelet directory (for staging and target paths of one test). */
  public Path newDirectory(String prefix) {
    try {
      return Files.createTempDirectory(kubeletDir(), prefix);
    } catch (IOException e) {
      throw new AssertionError("cannot create a directory under " + kubeletDir(), e);
    }
  }

  /** A fresh, empty directory below the work directory but outside the kubelet directory: the host's, to a node. */
  public Path newDirectoryOutsideKubelet(String prefix) {
    try {
      return Files.createTempDirectory(work, prefix);
    } catch (IOException e) {
      throw new AssertionError("cannot create a directory under " + work, e);
    }
  }

  public Path work() {
    return work;
  }

  public LocalAws aws() {
    return aws;
  }

  /** The instance id that plays this node (the node id NodeGetInfo reports). */
  public String nodeId() {
    return aws.instanceId();
  }

  /** Mount points below the work directory, deepest (last mounted) first. */
  public List<Path> mountsBelowWork() {
    String prefix = work.toString() + "/";
    try {
      List<Path> out = new ArrayList<>(MountInfo.parseAll(Files.readString(Path.of("/proc/self/mountinfo"))).stream()
          .map(MountInfo::mountPoint).filter(m -> (m + "/").startsWith(prefix)).toList());
      java.util.Collections.reverse(out);
      return out;
    } catch (IOException e) {
      throw new AssertionError("cannot read /proc/self/mountinfo", e);
    }
  }

  /** Loop devices ({@code /dev/loopN}) whose backing file lies below the work directory. */
  public List<Path> loopDevicesBelowWork() {
    String prefix = work.toString() + "/";
    List<Path> out = new ArrayList<>();
    try (Stream<Path> blocks = Files.list(Path.of("/sys/block"))) {
      for (Path b : blocks.filter(p -> p.getFileName().toString().startsWith("loop")).toList()) {
        Path backing = b.resolve("loop/backing_file");
        try {
          if (Files.readString(backing).strip().startsWith(prefix)) {
            out.add(Path.of("/dev").resolve(b.getFileName().toString()));
          }
        } catch (IOException notAttached) {
          // No backing file: a free loop device.
        }
      }
    } catch (IOException e) {
      throw new AssertionError("cannot list /sys/block", e);
    }
    return out;
  }

  /** Stops every process, then removes only what lies below the work directory. Idempotent. */
  public void close() {
    List<String> problems = new ArrayList<>();
    processes.values().forEach(DriverProcess::destroy);
    if (work != null) {
      for (int pass = 0; pass < 5 && !mountsBelowWork().isEmpty(); pass++) {
        for (Path mount : mountsBelowWork()) {
          exec(problems, Duration.ofSeconds(30), "umount", mount.toString());
        }
      }
      for (Path mount : mountsBelowWork()) {
        exec(problems, Duration.ofSeconds(30), "umount", "-l", mount.toString());
      }
      for (Path loop : loopDevicesBelowWork()) {
        exec(problems, Duration.ofSeconds(30), "losetup", "-d", loop.toString());
      }
      if (mountsBelowWork().isEmpty()) {
        deleteTree(work, problems);
      } else {
        problems.add("left " + work + ": still mounted below it: " + mountsBelowWork());
      }
    }
    if (aws != null) {
      aws.close();
      aws = null;
    }
    if (!problems.isEmpty()) {
      System.err.println("adversarial fixture clean-up: " + problems);
    }
  }

  private static void exec(List<String> problems, Duration timeout, String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        problems.add(String.join(" ", command) + ": timed out");
      } else if (p.exitValue() != 0) {
        problems.add(String.join(" ", command) + ": " + out.strip());
      }
    } catch (IOException e) {
      problems.add(String.join(" ", command) + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void deleteTree(Path dir, List<String> problems) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | RuntimeException e) {
      problems.add("cannot remove " + dir + ": " + e.getMessage());
    }
  }
}
