package io.awscsi.e2e.bench;

import csi.v1.GetPluginInfoRequest;
import csi.v1.IdentityGrpc;
import csi.v1.ProbeRequest;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The driver's controller as users run it: {@code bin/aws-csi-driver} of the built distribution with the plugin
 * arguments the chart renders (its socket and HTTP endpoint moved to loopback paths of this run), plus its resident
 * memory, live heap and CPU time read from {@code /proc} and {@code jcmd}, and the time from its start to the first
 * answered GetPluginInfo. The same for another distribution (a baseline's) or upstream's Go binary (see
 * {@link Subject}), so that one run compares them.
 */
final class ControllerProcess implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  static final boolean NMT = "1".equals(System.getenv("BENCH_NMT"));

  /**
   * What runs as the controller: a distribution of this project ({@code bin/aws-csi-driver} under {@code path}: the
   * current build or the baseline's), or upstream's Go binary at {@code path}, started as {@code uid} (and its group
   * {@code gid}) through
   * {@code setpriv} so that a firewall rule on that uid (hack/bench.sh) keeps every packet it sends on loopback.
   */
  record Subject(String label, Path path, boolean upstream, int uid, int gid) {

    static Subject distribution(String label, Path dist) {
      return new Subject(label, dist, false, -1, -1);
    }

    static Subject upstream(Path binary, int uid, int gid) {
      if (uid <= 0) {
        throw new IllegalArgumentException("upstream's controller runs only as a dedicated uid (--upstream-uid) "
            + "whose packets a firewall rule keeps on loopback; got " + uid);
      }
      return new Subject("upstream", binary, true, uid, gid);
    }
  }

  private final Process process;
  private final Subject subject;
  private final Path socket;
  private final Path log;
  private final AtomicLong sampledPeakKiB = new AtomicLong();
  private final Thread sampler;
  private final long startedNanos;
  private double startupSeconds = Double.NaN;
  private double startupCpuSeconds = Double.NaN;

  private ControllerProcess(Process process, Subject subject, Path socket, Path log, long startedNanos) {
    this.process = process;
    this.subject = subject;
    this.socket = socket;
    this.log = log;
    this.startedNanos = startedNanos;
    this.sampler = Thread.ofVirtual().name("rss-sampler").start(() -> {
      while (process.isAlive()) {
        sampledPeakKiB.accumulateAndGet(rssKiB(), Math::max);
        try {
          Thread.sleep(250);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
  }

  /**
   * Starts {@code dist/bin/aws-csi-driver} with the chart's {@code pluginArgs} (endpoint and HTTP endpoint replaced)
   * and {@code environment}, and waits for a ready Probe on its socket.
   */
  static ControllerProcess start(Path dist, List<String> pluginArgs, Map<String, String> environment, Path work)
      throws IOException, InterruptedException {
    return start(Subject.distribution("current", dist), pluginArgs, environment, work);
  }

  /**
   * Starts {@code subject} with {@code pluginArgs} (endpoint and HTTP endpoint replaced) and {@code environment}, and
   * waits for a ready Probe on its socket. Upstream's binary gets an environment of its own: the emulated EC2 as its
   * EC2 endpoint, instance metadata disabled, dummy keys, nothing of this process's environment.
   */
  static ControllerProcess start(Subject subject, List<String> pluginArgs, Map<String, String> environment,
      Path work) throws IOException, InterruptedException {
    Path socket = work.resolve("controller.sock");
    Path log = work.resolve("controller.log");
    List<String> command = new ArrayList<>();
    if (subject.upstream()) {
      command.addAll(List.of("setpriv", "--reuid=" + subject.uid(), "--regid=" + subject.gid(), "--clear-groups",
          "--", subject.path().toString()));
      // Its socket goes into the run's directory, which the dedicated uid may write.
      Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxrwxrwx"));
    } else {
      command.add(subject.path().resolve("bin/aws-csi-driver").toString());
    }
    for (String arg : pluginArgs) {
      if (arg.startsWith("--endpoint")) {
        command.add("--endpoint=unix://" + socket);
      } else if (arg.startsWith("--http-endpoint")) {
        command.add("--http-endpoint=127.0.0.1:" + freePort());
      } else {
        command.add(arg);
      }
    }
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    if (subject.upstream()) {
      Map<String, String> env = pb.environment();
      env.clear();
      env.putAll(environment);
      String endpoint = environment.get("AWS_ENDPOINT_URL");
      env.put("PATH", "/usr/bin:/bin");
      env.put("HOME", work.toString());
      env.put("AWS_EC2_ENDPOINT", endpoint);
      env.put("AWS_EC2_METADATA_DISABLED", "true");
      env.put("AWS_ACCESS_KEY_ID", "AKIDBENCHMARK");
      env.put("AWS_SECRET_ACCESS_KEY", "benchmark");
      if (endpoint == null || !endpoint.startsWith("http://127.0.0.1:")) {
        throw new IllegalArgumentException("upstream's controller only ever gets a loopback endpoint; got " + endpoint);
      }
    } else {
      pb.environment().putAll(environment);
      pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
      if (NMT) {
        // Where native memory goes (BENCH_NMT=1): baseline at idle, diff after the load.
        pb.environment().merge("JAVA_OPTS", "-XX:NativeMemoryTracking=summary", (a, b) -> a + " " + b);
      }
    }
    long started = System.nanoTime();
    ControllerProcess p = new ControllerProcess(pb.start(), subject, socket, log, started);
    p.awaitReady(command);
    return p;
  }

  private void awaitReady(List<String> command) throws InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    // First the start-up figure: a GetPluginInfo tried as soon as the socket exists, every 5 ms (a fresh channel
    // each time, so that no reconnect backoff delays the first answer).
    while (Double.isNaN(startupSeconds) && System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the controller exited with " + process.exitValue() + ":\n" + logTail());
      }
      if (Files.exists(socket) && pluginInfo()) {
        startupSeconds = (System.nanoTime() - startedNanos) / 1e9;
        startupCpuSeconds = cpuSeconds();
        break;
      }
      Thread.sleep(5);
    }
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the controller exited with " + process.exitValue() + ":\n" + logTail());
      }
      if (Files.exists(socket) && probe()) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(String.join(" ", command) + " was not ready within " + START_TIMEOUT + ":\n"
        + logTail());
  }

  private boolean pluginInfo() {
    ManagedChannel channel = channel();
    try {
      return !IdentityGrpc.newBlockingStub(channel).withDeadlineAfter(2, TimeUnit.SECONDS)
          .getPluginInfo(GetPluginInfoRequest.getDefaultInstance()).getName().isEmpty();
    } catch (StatusRuntimeException e) {
      return false;
    } finally {
      channel.shutdownNow();
    }
  }

  /** Seconds from the process's start to its first answered GetPluginInfo. */
  double startupSeconds() {
    return startupSeconds;
  }

  /** CPU seconds the process had used when it first answered GetPluginInfo. */
  double startupCpuSeconds() {
    return startupCpuSeconds;
  }

  Subject subject() {
    return subject;
  }

  private boolean probe() {
    ManagedChannel channel = channel();
    try {
      // Ready when the answer says so or says nothing (the spec's default; upstream leaves the field out).
      var answer = IdentityGrpc.newBlockingStub(channel).withDeadlineAfter(2, TimeUnit.SECONDS)
          .probe(ProbeRequest.getDefaultInstance());
      return !answer.hasReady() || answer.getReady().getValue();
    } catch (StatusRuntimeException e) {
      return false;
    } finally {
      channel.shutdownNow();
    }
  }

  /** A new channel to the controller's socket (one per sidecar, as each sidecar container has its own). */
  ManagedChannel channel() {
    return Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create()).build();
  }

  /** A channel closed with the try block that opened it. */
  record Connection(ManagedChannel channel) implements AutoCloseable {
    @Override
    public void close() {
      channel.shutdownNow();
    }
  }

  Connection connect() {
    return new Connection(channel());
  }

  long pid() {
    return process.pid();
  }

  /** VmRSS now, KiB. */
  long rssKiB() {
    return statusField("VmRSS:");
  }

  /** The larger of the kernel's high-water mark (VmHWM) and the sampled peak, KiB. */
  long peakRssKiB() {
    return Math.max(statusField("VmHWM:"), sampledPeakKiB.get());
  }

  /** User plus system CPU time so far, seconds ({@code /proc/<pid>/stat} fields 14 and 15). */
  double cpuSeconds() {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid() + "/stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // fields[0] is field 3 (state): utime is field 14, stime field 15.
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
      return ticks / (double) clockTicks();
    } catch (IOException e) {
      return Double.NaN;
    }
  }

  /** Live objects after a full collection, by class ({@code jcmd GC.class_histogram}, which collects first). */
  record Histogram(long totalBytes, Map<String, long[]> byClass) {

    /** The classes that grew most from {@code before} to this one: instances and bytes gained. */
    String growthOver(Histogram before, int rows) {
      List<Map.Entry<String, long[]>> grown = new ArrayList<>();
      byClass.forEach((name, now) -> {
        long[] then = before.byClass.getOrDefault(name, new long[2]);
        grown.add(Map.entry(name, new long[] {now[0] - then[0], now[1] - then[1]}));
      });
      grown.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
      StringBuilder out = new StringBuilder();
      for (var e : grown.subList(0, Math.min(rows, grown.size()))) {
        out.append(String.format("    %+9d instances %+11d bytes  %s%n", e.getValue()[0], e.getValue()[1], e.getKey()));
      }
      return out.toString();
    }
  }

  /** Live objects by class; none for upstream's binary (jcmd's attach sends SIGQUIT, which ends a Go process). */
  Histogram histogram() {
    if (subject.upstream()) {
      return new Histogram(-1, Map.of());
    }
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Map<String, long[]> byClass = new java.util.HashMap<>();
    long total = -1;
    try {
      Process p = new ProcessBuilder(jcmd.toString(), String.valueOf(pid()), "GC.class_histogram")
          .redirectErrorStream(true).start();
      List<String> lines = new String(p.getInputStream().readAllBytes()).lines().toList();
      p.waitFor(60, TimeUnit.SECONDS);
      for (String line : lines) {
        String[] parts = line.trim().split("\\s+");
        if (parts.length >= 4 && parts[0].endsWith(":")) {
          byClass.put(parts[3], new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])});
        } else if (parts.length == 3 && parts[0].equals("Total")) {
          total = Long.parseLong(parts[2]);
        }
      }
    } catch (IOException | NumberFormatException e) {
      return new Histogram(-1, Map.of());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Histogram(-1, Map.of());
    }
    return new Histogram(total, byClass);
  }

  /** {@code jcmd VM.native_memory baseline} (with BENCH_NMT=1), or nothing. */
  void nmtBaseline() {
    if (NMT && !subject.upstream()) {
      jcmd("VM.native_memory", "baseline");
    }
  }

  /** The native-memory diff since the baseline (with BENCH_NMT=1), or an empty string. */
  String nmtDiff() {
    return NMT && !subject.upstream() ? jcmd("VM.native_memory", "summary.diff") : "";
  }

  private String jcmd(String... command) {
    List<String> args = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        String.valueOf(pid())));
    args.addAll(List.of(command));
    try {
      Process p = new ProcessBuilder(args).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      p.waitFor(60, TimeUnit.SECONDS);
      return out;
    } catch (IOException e) {
      return e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  Path log() {
    return log;
  }

  private long statusField(String name) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid() + "/status"))) {
        if (line.startsWith(name)) {
          return Long.parseLong(line.substring(name.length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }

  private static long clockTicks = -1;

  private static synchronized long clockTicks() {
    if (clockTicks < 0) {
      clockTicks = 100;
      try {
        Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
          clockTicks = Long.parseLong(out);
        }
      } catch (IOException | NumberFormatException e) {
        // 100 is the Linux default.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return clockTicks;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    sampler.interrupt();
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
