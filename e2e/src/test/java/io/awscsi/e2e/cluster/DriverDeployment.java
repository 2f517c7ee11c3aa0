package io.awscsi.e2e.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * How the driver runs on the cluster under test, for the cases that act on the driver itself (restart the node
 * plugin, kill a controller replica) and for the logs a failure prints. The chart's pods (EKS, and the local cluster
 * once it runs the chart) or the host processes of the local cluster's {@code hostpod}s: the cases are the same.
 * A replica is named by its pod name, which is also the leader-election identity its sidecars write in the Leases.
 */
sealed interface DriverDeployment {

  /** Restarts the EBS node plugin on {@code node} and returns once the new one serves. */
  void restartNodePlugin(String node);

  /** Kills the controller replica {@code identity} at once (no graceful stop), as a crashed node would. */
  void killControllerReplica(String identity);

  /** Brings a killed replica back, as its Deployment would (on a real cluster the Deployment does it by itself). */
  void restoreControllerReplica(String identity);

  /** The last lines of every driver component's log, by component. */
  Map<String, String> logs(int lines);

  /** The chart's pods in {@code namespace}. */
  record ChartPods(KubernetesClient client, String namespace) implements DriverDeployment {

    @Override
    public void restartNodePlugin(String node) {
      Pod plugin = nodePlugin(node);
      String oldUid = plugin.getMetadata().getUid();
      client.pods().inNamespace(namespace).resource(plugin).delete();
      Eventually.await("a new ebs-csi-node pod ready on " + node, ClusterFixture.POD_READY, () -> {
        Pod now = nodePlugin(node);
        return !now.getMetadata().getUid().equals(oldUid) && Readiness.isPodReady(now);
      });
    }

    private Pod nodePlugin(String node) {
      return client.pods().inNamespace(namespace).withLabel("app", "ebs-csi-node")
          .withField("spec.nodeName", node).list().getItems().stream()
          .filter(p -> p.getMetadata().getDeletionTimestamp() == null).findFirst()
          .orElseThrow(() -> new AssertionError("no ebs-csi-node pod on node " + node));
    }

    @Override
    public void killControllerReplica(String identity) {
      client.pods().inNamespace(namespace).withName(identity).withGracePeriod(0).delete();
    }

    @Override
    public void restoreControllerReplica(String identity) {
      // The Deployment replaces the pod on its own.
    }

    @Override
    public Map<String, String> logs(int lines) {
      Map<String, String> logs = new LinkedHashMap<>();
      // Both drivers' pods: the chart's app.kubernetes.io/name is upstream's, one per driver.
      for (Pod p : client.pods().inNamespace(namespace).withLabel("app.kubernetes.io/instance", ClusterFixture.RELEASE)
          .list().getItems()) {
        for (var c : p.getSpec().getContainers()) {
          try {
            logs.put(p.getMetadata().getName() + "/" + c.getName(), client.pods().inNamespace(namespace)
                .withName(p.getMetadata().getName()).inContainer(c.getName()).tailingLines(lines).getLog());
          } catch (RuntimeException e) {
            logs.put(p.getMetadata().getName() + "/" + c.getName(), "(no log: " + e.getMessage() + ")");
          }
        }
      }
      return logs;
    }
  }

  /**
   * The local cluster's host processes: one {@code hostpod} per replica ({@code hostpod-<pod>.pid} under the
   * harness's run directory), one PID file per container ({@code <run>/pods/<pod>/<container>.pid}) and one log
   * per container.
   */
  record HostPods(LocalCluster cluster) implements DriverDeployment {

    private Path containerPid(String pod, String container) {
      return Path.of(cluster.get("KUBE_LOCAL_HOSTPOD_RUN"), pod, container + ".pid");
    }

    private Path podPid(String pod) {
      return Path.of(cluster.get("KUBE_LOCAL_HOSTPOD_PIDS"), "hostpod-" + pod + ".pid");
    }

    private static long readPid(Path file) {
      try {
        return Long.parseLong(Files.readString(file).trim());
      } catch (IOException | NumberFormatException e) {
        return -1;
      }
    }

    @Override
    public void restartNodePlugin(String node) {
      String pod = "ebs-csi-node-" + node;
      Path pidFile = containerPid(pod, "ebs-plugin");
      long old = readPid(pidFile);
      if (old <= 0) {
        throw new AssertionError("no ebs-plugin process of " + pod + " (" + pidFile + ")");
      }
      // SIGTERM, as the kubelet stops a container; hostpod starts it again.
      ProcessHandle.of(old).ifPresent(ProcessHandle::destroy);
      Eventually.await("ebs-plugin of " + pod + " restarted (new pid)", Duration.ofMinutes(2), () -> {
        long now = readPid(pidFile);
        return now > 0 && now != old && ProcessHandle.of(now).map(ProcessHandle::isAlive).orElse(false);
      });
    }

    @Override
    public void killControllerReplica(String identity) {
      long pid = readPid(podPid(identity));
      if (pid <= 0) {
        throw new AssertionError("no hostpod " + identity + " (" + podPid(identity) + ")");
      }
      // SIGKILL of the pod's hostpod: its containers die with it (PR_SET_PDEATHSIG).
      try {
        new ProcessBuilder("kill", "-KILL", Long.toString(pid)).start().waitFor();
      } catch (IOException e) {
        throw new AssertionError("cannot kill " + pid, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      Eventually.await("hostpod " + identity + " gone", Duration.ofSeconds(30),
          () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
    }

    @Override
    public void restoreControllerReplica(String identity) {
      cluster.harness("hostpod-start", identity);
    }

    @Override
    public Map<String, String> logs(int lines) {
      Map<String, String> logs = new LinkedHashMap<>();
      Path root = Path.of(cluster.get("KUBE_LOCAL_HOSTPOD_LOGS"));
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
          List<String> all = Files.readAllLines(f);
          logs.put(root.relativize(f).toString(),
              String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size())));
        }
      } catch (IOException | java.io.UncheckedIOException e) {
        logs.put(root.toString(), "(cannot read: " + e.getMessage() + ")");
      }
      return logs;
    }
  }
}
