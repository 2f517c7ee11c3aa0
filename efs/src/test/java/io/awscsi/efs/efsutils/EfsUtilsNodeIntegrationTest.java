package io.awscsi.efs.efsutils;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.host.LinuxMounter;
import io.awscsi.core.host.ProcessCommandRunner;
import io.awscsi.core.host.SupervisedProcess;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.testing.LogCapture;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's efs-utils side with stand-ins for the watchdog and efs-proxy ({@code hack/efs-utils-standin}: this kernel
 * has no NFS client): the watchdog supervised, a plugin restart under existing mounts, no stray process after stop.
 * A "mount" here is a bind mount of a scratch directory with efs-utils' state file for it, so the stand-in watchdog
 * sees a mounted mount point exactly as the real one checks the mount table.
 */
@Tag("integration")
class EfsUtilsNodeIntegrationTest {

  private static final SupervisedProcess.Policy FAST = new SupervisedProcess.Policy(Duration.ofMillis(100),
      Duration.ofMillis(500), Duration.ofSeconds(30), Duration.ofSeconds(3));
  private static final Pattern PROXY_ANSWER = Pattern.compile("efs-proxy (\\d+)");

  @TempDir Path root;
  private EfsUtilsDirectories dirs;
  private final LinuxMounter mounter = LinuxMounter.create(ProcessCommandRunner.create());
  private final List<Path> mounts = new ArrayList<>();
  private final List<EfsUtilsNode> nodes = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    dirs = new EfsUtilsDirectories(root.resolve("var/amazon/efs"), root.resolve("etc/amazon/efs-legacy"),
        root.resolve("etc/amazon/efs-static-files"), root.resolve("etc/amazon/efs"), root.resolve("var/run/efs"));
    Files.createDirectories(dirs.configDir());
    Files.createDirectories(dirs.staticFilesDir());
    Files.writeString(dirs.staticFilesDir().resolve("efs-utils.crt"), "CA");
  }

  @AfterEach
  void tearDown() {
    nodes.forEach(EfsUtilsNode::close);
    for (Path mount : mounts) {
      mounter.unmount(mount);
    }
  }

  /** The stand-in watchdog behind a wrapper that passes it where the node wrote config and state. */
  private Path watchdog(String... extra) throws IOException {
    Path wrapper = root.resolve("amazon-efs-mount-watchdog");
    Files.writeString(wrapper, "#!/bin/sh\nexec python3 " + standin("amazon-efs-mount-watchdog") + " --config "
        + dirs.etcDir().resolve(EfsUtilsConfig.FILE_NAME) + " --state-dir " + dirs.stateDir() + " "
        + String.join(" ", extra) + "\n");
    Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
    return wrapper;
  }

  private EfsUtilsNode start(Path watchdog, MetricsRegistry metrics, String overrides) {
    EfsUtilsNode node = EfsUtilsNode.start(new EfsUtilsNode.Options(dirs, new EfsUtilsConfig("us-east-1", false,
        21049, false, false, ConfOverride.parse("efs-utils-conf-overrides", overrides)), watchdog, FAST), metrics);
    nodes.add(node);
    return node;
  }

  @Test
  void aWatchdogThatExitsIsStartedAgainAndCounted() throws Exception {
    MetricsRegistry metrics = new MetricsRegistry();
    try (LogCapture log = LogCapture.start(Level.INFO)) {
      EfsUtilsNode node = start(watchdog("--exit-after", "0.2"), metrics, "mount-watchdog:poll_interval_sec=0.1");

      await(() -> node.watchdog().restarts() >= 2, "two restarts", log);

      assertThat(metrics.scrape()).containsPattern("aws_efs_csi_mount_watchdog_restarts_total [2-9]");
      assertThat(log.messages(SupervisedProcess.class.getName()))
          .anyMatch(m -> m.matches("amazon-efs-mount-watchdog\\[\\d+]: watchdog \\d+ polling .* every 0.1 s"))
          .anyMatch(m -> m.matches("amazon-efs-mount-watchdog \\(pid \\d+\\) exited with code 1 after \\d+ ms; "
              + "starting it again in \\d+ ms \\(restart 1\\)"));
      assertThat(node.unavailableReason()).isEmpty();
    }
  }

  @Test
  void theWrittenConfigurationIsWhatTheWatchdogReads() throws Exception {
    EfsUtilsNode node = start(watchdog(), new MetricsRegistry(), "mount-watchdog:poll_interval_sec=0.5");

    assertThat(node.configFile()).isEqualTo(dirs.configDir().toRealPath().resolve("efs-utils.conf"));
    Map<String, Map<String, String>> conf = EfsUtilsConfigTest.read(Files.readString(
        dirs.etcDir().resolve("efs-utils.conf")));
    assertThat(conf.get("mount")).containsEntry("region", "us-east-1");
    assertThat(conf.get("mount-watchdog")).containsEntry("poll_interval_sec", "0.5");
    await(() -> node.watchdog().pid().isPresent(), "the watchdog running", null);
  }

  @Test
  void aPluginRestartedUnderExistingMountsGetsTheirProxiesBackAndForgetsUnmountedOnes() throws Exception {
    int port = freePort();
    Path mounted = mount("pod-a");
    writeState("fs-0123abcd.pod-a." + port, mounted, port);
    Path unmounted = Files.createDirectories(root.resolve("pod-b"));
    writeState("fs-0456abcd.pod-b." + (port + 1), unmounted, port + 1);
    Path watchdog = watchdog();

    EfsUtilsNode first = start(watchdog, new MetricsRegistry(), "mount-watchdog:poll_interval_sec=0.2");
    long firstProxy = awaitProxy(port, -1);
    await(() -> !Files.exists(dirs.stateDir().resolve("fs-0456abcd.pod-b." + (port + 1))), "unmounted state gone",
        null);

    // The plugin's container ends: the watchdog and the proxies it started end with it; state and mounts stay.
    first.close();
    await(() -> ProcessHandle.of(firstProxy).map(h -> !h.isAlive()).orElse(true), "the old proxy gone", null);
    assertThat(answer(port)).isEmpty();

    start(watchdog, new MetricsRegistry(), "mount-watchdog:poll_interval_sec=0.2");
    long secondProxy = awaitProxy(port, firstProxy);

    assertThat(secondProxy).isNotEqualTo(firstProxy);
    assertThat(Files.readString(dirs.stateDir().resolve("fs-0123abcd.pod-a." + port)))
        .contains("\"pid\": " + secondProxy);
  }

  @Test
  void stoppingLeavesNoProcessBehind() throws Exception {
    int port = freePort();
    writeState("fs-0123abcd.pod-a." + port, mount("pod-a"), port);
    EfsUtilsNode node = start(watchdog(), new MetricsRegistry(), "mount-watchdog:poll_interval_sec=0.2");
    long proxy = awaitProxy(port, -1);
    long watchdogPid = node.watchdog().pid().orElseThrow();

    node.close();

    for (long pid : List.of(proxy, watchdogPid)) {
      await(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true), "pid " + pid + " gone", null);
    }
    assertThat(ProcessHandle.current().descendants().filter(h -> h.info().commandLine().orElse("")
        .contains(root.toString()))).isEmpty();
  }

  @Test
  void aWatchdogThatCannotStartMakesTheNodeNotReady() throws Exception {
    EfsUtilsNode node = start(root.resolve("not-installed"), new MetricsRegistry(), "");

    await(() -> !node.unavailableReason().isEmpty(), "the failed start reported", null);
    assertThat(node.unavailableReason()).contains("amazon-efs-mount-watchdog is not running")
        .contains(root.resolve("not-installed").toString());
  }

  @Test
  void theControllerStartsEfsUtilsBeforeItsFirstMountOnly() throws Exception {
    io.awscsi.core.host.RecordingCommandRunner runner = new io.awscsi.core.host.RecordingCommandRunner();
    Path mountInfo = Files.writeString(root.resolve("mountinfo"), "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n");
    LinuxMounter recorded = new LinuxMounter(runner, mountInfo, Duration.ofSeconds(5));
    try (EfsUtilsOnFirstMount efsUtils = new EfsUtilsOnFirstMount(new EfsUtilsNode.Options(dirs,
        new EfsUtilsConfig("", false, 21049, false, false, List.of()), watchdog(), FAST), new MetricsRegistry())) {
      io.awscsi.efs.mount.EfsUtilsMountBackend backend = new io.awscsi.efs.mount.EfsUtilsMountBackend(recorded,
          efsUtils);
      assertThat(efsUtils.started()).isNull();
      assertThat(dirs.configDir().resolve("efs-utils.conf")).doesNotExist();

      for (String fs : List.of("fs-0123abcd", "fs-0456abcd")) {
        backend.mount(new io.awscsi.efs.mount.EfsMountRequest(fs, "/", "", List.of("tls"), false,
            Duration.ofSeconds(5)), Files.createDirectories(root.resolve("work/" + fs)));
      }

      EfsUtilsNode started = efsUtils.started();
      assertThat(started).isNotNull();
      assertThat(dirs.configDir().resolve("efs-utils.conf")).exists();
      await(() -> started.watchdog().pid().isPresent(), "the watchdog running", null);
      assertThat(runner.commandLines(io.awscsi.core.host.HostTool.MOUNT)).hasSize(2);
      long pid = started.watchdog().pid().orElseThrow();
      efsUtils.close();
      await(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true), "the watchdog stopped", null);
    }
  }

  private Path mount(String name) throws IOException {
    Path source = Files.createDirectories(root.resolve("fs/" + name));
    Path target = Files.createDirectories(root.resolve(name));
    mounter.bindMount(source, target, false, List.of());
    mounts.add(target);
    return target;
  }

  /** efs-utils' state of one mount: the proxy's command line and the stunnel-style config holding its port. */
  private void writeState(String name, Path mountPoint, int port) throws IOException {
    Files.createDirectories(dirs.stateDir());
    Path proxyConfig = dirs.stateDir().resolve("stunnel-config." + name);
    Files.writeString(proxyConfig, "[efs]\nclient = yes\naccept = 127.0.0.1:" + port + "\n");
    Files.writeString(dirs.stateDir().resolve(name), "{\"pid\": 999999999, \"cmd\": [\"python3\", \""
        + standin("efs-proxy") + "\", \"" + proxyConfig + "\", \"--tls\"], \"mountpoint\": \"" + mountPoint + "\"}");
  }

  /** Waits for a proxy other than {@code previous} to answer on the port; its pid. */
  private static long awaitProxy(int port, long previous) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      String answer = answer(port);
      Matcher m = PROXY_ANSWER.matcher(answer);
      if (m.find() && Long.parseLong(m.group(1)) != previous) {
        return Long.parseLong(m.group(1));
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no proxy (other than " + previous + ") answered on 127.0.0.1:" + port);
  }

  private static String answer(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      socket.setSoTimeout(1000);
      BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      String line = in.readLine();
      return line == null ? "" : line;
    } catch (IOException e) {
      return "";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The stand-in's path in the repository ({@code hack/efs-utils-standin}). */
  static Path standin(String name) {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      Path candidate = d.resolve("hack/efs-utils-standin").resolve(name);
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("no hack/efs-utils-standin/" + name + " above " + Path.of("").toAbsolutePath());
  }

  private static void await(BooleanSupplier condition, String what, LogCapture log) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what
            + (log == null ? "" : "; log:\n" + String.join("\n", log.messages(SupervisedProcess.class.getName()))));
      }
      Thread.sleep(20);
    }
  }
}
