package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Restarting the EFS node plugin's pod under a running pod that appends a line a second to an access-point volume
 * mounted through efs-utils (issue 16): the node's supervised watchdog, started again in the new pod, finds the
 * mount's state in the host's {@code /var/run/efs} and starts the TLS proxy that died with the old pod, while the
 * pod keeps writing with no gap; after the unmounts the watchdog stops the proxies and forgets their state, so no
 * process or state is left. On the local cluster the efs-utils executables are the stand-ins of
 * hack/efs-utils-standin (the kernel has no NFS client): their proxy answers on the mount's port with its pid, and
 * mount.efs bind-mounts the local directory the controller provisions into.
 */
class EfsNodePluginRestartTest extends ClusterCase {

  private static final String WRITER = "i=0; while true; do echo $i >> " + ClusterFixture.MOUNT
      + "/log; sync; i=$((i+1)); sleep 1; done";
  /** efs-utils' state file of a TLS mount: {@code <fs-id>.<mount point, / as .>.<port>}. */
  private static final Pattern STATE_FILE = Pattern.compile("(fs-[0-9a-f]+)\\.(.+)\\.([0-9]+)");
  private static final Pattern PID = Pattern.compile("\"pid\":\\s*([0-9]+)");

  private Path stateDirectory;

  @Override
  void assumptions() {
    assumeTrue(ClusterFixture.target().fileSystemId().isPresent(), "no EFS file system (E2E_EFS_FILESYSTEM_ID)");
    stateDirectory = ClusterFixture.target() instanceof ClusterTarget.Local local
        ? local.cluster().efsUtilsStateDirectory().orElse(null) : null;
    assumeTrue(stateDirectory != null, "the EFS node runs efs-utils (with the stand-ins) only when the local cluster"
        + " installs the charts as pods (KUBE_LOCAL_DRIVER=chart, make test-chart-pods); host processes use the local"
        + " mount backend");
  }

  @Test
  void tlsProxiesComeBackAfterTheNodePluginPodRestartsAndNothingIsLeftAfterTheUnmount() {
    Steps steps = new Steps("efs node plugin restart (efs-utils stand-ins)");
    String node = cluster.schedulableNodes().getFirst().getMetadata().getName();
    DriverDeployment.ChartPods pods = new DriverDeployment.ChartPods(cluster.client, ClusterFixture.DRIVER_NAMESPACE);
    steps.step("the EFS node supervises efs-utils' watchdog", () -> Eventually.await(
        "'started amazon-efs-mount-watchdog' in the efs-plugin log", Duration.ofSeconds(60),
        () -> pluginLog(pods, node).contains("started amazon-efs-mount-watchdog")));
    TlsMount mount = steps.step("writer pod appending a line a second to an efs-ap volume; its TLS proxy answers",
        () -> {
          cluster.createPvc("shared", ClusterFixture.EFS_CLASS, "1Gi", "ReadWriteMany");
          cluster.startPod("writer", "shared", WRITER, node);
          Eventually.await("a few lines written", Duration.ofSeconds(30), () -> lines("writer") >= 3);
          TlsMount m = tlsMountOf("writer").orElseThrow(() -> new AssertionError("no efs-utils state for the writer's"
              + " mount in " + stateDirectory + ": " + stateFiles()));
          assertThat(proxyAnswer(m.port())).as("the TLS proxy on port %d", m.port()).startsWith("efs-proxy ");
          return m;
        });
    long before = lines("writer");
    steps.step("EFS node plugin pod on " + node + " deleted and replaced",
        () -> cluster.driver().restartNodePlugin(DriverDeployment.EFS_NODE_PLUGIN, node));
    steps.step("the new pod's watchdog started the mount's proxy again; the port answers", () -> {
      Eventually.await("'started the TLS proxy of " + mount.mountPoint() + " again' in the new efs-plugin log",
          Duration.ofSeconds(60), () -> pluginLog(pods, node).contains("started the TLS proxy of "
              + mount.mountPoint() + " again"));
      Eventually.await("port " + mount.port() + " answered by a proxy", Duration.ofSeconds(30),
          () -> proxyAnswer(mount.port()).startsWith("efs-proxy "));
      return proxyAnswer(mount.port());
    });
    steps.step("the writer keeps appending, was not restarted, and its log has no gap", () -> {
      Eventually.await("5 more lines", Duration.ofSeconds(30), () -> lines("writer") >= before + 5);
      assertThat(cluster.restarts("writer")).isZero();
      assertConsecutive(cluster.exec("writer", "cat " + ClusterFixture.MOUNT + "/log").lines().toList());
    });
    steps.step("writer deleted; a reader reads every line", () -> {
      cluster.deletePod("writer");
      cluster.startPod("reader", "shared", "sleep 86400", node);
      List<String> read = cluster.exec("reader", "cat " + ClusterFixture.MOUNT + "/log").lines().toList();
      assertThat(read.size()).isGreaterThanOrEqualTo((int) before + 5);
      assertConsecutive(read);
      return read.size() + " lines";
    });
    TlsMount readerMount = tlsMountOf("reader").orElseThrow(() -> new AssertionError("no efs-utils state for the "
        + "reader's mount: " + stateFiles()));
    steps.step("reader deleted: the watchdog stopped both proxies and removed their state; no process left", () -> {
      cluster.deletePod("reader");
      for (TlsMount m : List.of(mount, readerMount)) {
        Eventually.await("state " + m.stateFile().getFileName() + " removed", Duration.ofSeconds(60),
            () -> !Files.exists(m.stateFile()));
        Eventually.await("port " + m.port() + " closed", Duration.ofSeconds(30), () -> proxyAnswer(m.port()).isEmpty());
        assertThat(processesNaming(m.stateFile().getFileName().toString())).as("processes of %s", m.mountPoint())
            .isEmpty();
      }
    });
    steps.summary();
  }

  /** A TLS mount as efs-utils' state records it. */
  private record TlsMount(Path stateFile, String mountPoint, int port) { }

  /** The state of the TLS mount of {@code pod}'s volume (its mount point is under the pod's kubelet directory). */
  private Optional<TlsMount> tlsMountOf(String pod) {
    Pod p = cluster.client.pods().inNamespace(cluster.namespace).withName(pod).get();
    String podDir = "/pods/" + p.getMetadata().getUid() + "/volumes/";
    for (Path file : stateFiles()) {
      Matcher name = STATE_FILE.matcher(file.getFileName().toString());
      if (!name.matches() || !name.group(2).contains(podDir.replace('/', '.'))) {
        continue;
      }
      String text = read(file);
      Matcher point = Pattern.compile("\"mountpoint\":\\s*\"([^\"]+)\"").matcher(text);
      assertThat(PID.matcher(text).find()).as("pid in %s: %s", file, text).isTrue();
      return Optional.of(new TlsMount(file, point.find() ? point.group(1) : "", Integer.parseInt(name.group(3))));
    }
    return Optional.empty();
  }

  private List<Path> stateFiles() {
    try (Stream<Path> files = Files.list(stateDirectory)) {
      return files.filter(f -> !f.getFileName().toString().startsWith("stunnel-config.")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "";
    }
  }

  /** The stand-in proxy's answer on the mount's local port ("efs-proxy PID"), or "" when nothing listens. */
  private static String proxyAnswer(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      socket.setSoTimeout(2000);
      InputStream in = socket.getInputStream();
      return new String(in.readNBytes(64), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return "";
    }
  }

  /** Host pids whose command line names {@code text} (the proxies run in the node pod's PID namespace). */
  private static List<Long> processesNaming(String text) {
    List<Long> found = new ArrayList<>();
    ProcessHandle.allProcesses().forEach(p -> {
      try {
        String cmdline = Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline"));
        if (cmdline.contains(text)) {
          found.add(p.pid());
        }
      } catch (IOException | UncheckedIOException gone) {
        // exited meanwhile
      }
    });
    return found;
  }

  private String pluginLog(DriverDeployment.ChartPods pods, String node) {
    try {
      Pod plugin = pods.nodePlugin(DriverDeployment.EFS_NODE_PLUGIN, node);
      return cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE)
          .withName(plugin.getMetadata().getName()).inContainer("efs-plugin").getLog();
    } catch (RuntimeException | AssertionError notYet) {
      return "";
    }
  }

  private long lines(String pod) {
    return Long.parseLong(cluster.exec(pod, "wc -l < " + ClusterFixture.MOUNT + "/log").trim());
  }

  private static void assertConsecutive(List<String> log) {
    assertThat(log).as("the writer's log").isNotEmpty();
    for (int i = 0; i < log.size(); i++) {
      assertThat(log.get(i)).as("line %d of the writer's log", i).isEqualTo(Integer.toString(i));
    }
  }
}
