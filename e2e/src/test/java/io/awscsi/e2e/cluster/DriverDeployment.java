package io.awscsi.e2e.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
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
 * How the driver runs on the cluster under test, for the cases that act on the driver itself (restart, stop and
 * restore the node plugin, kill a controller replica) and for the logs a failure prints. The chart's pods (EKS, and the local cluster
 * once it runs the chart) or the host processes of the local cluster's {@code hostpod}s: the cases are the same.
 * A replica is named by its pod name, which is also the leader-election identity its sidecars write in the Leases.
 */
sealed interface DriverDeployment {

  /** The EBS node plugin's DaemonSet, and on host processes the prefix of its hostpods ({@code <name>-<node>}). */
  String NODE_PLUGIN = "ebs-csi-node";
  /** The EFS node plugin's DaemonSet (hostpod prefix likewise). */
  String EFS_NODE_PLUGIN = "efs-csi-node";

  /** Restarts the EBS node plugin on {@code node} and returns once the new one serves. */
  default void restartNodePlugin(String node) {
    restartNodePlugin(NODE_PLUGIN, node);
  }

  /**
   * Restarts the node plugin of DaemonSet {@code plugin} ({@link #NODE_PLUGIN}, {@link #EFS_NODE_PLUGIN}) on
   * {@code node}: its pod deleted and replaced (on host processes: its plugin process stopped and started again);
   * returns once the new one serves.
   */
  void restartNodePlugin(String plugin, String node);

  /**
   * Takes the EBS node plugin off {@code node} and returns once it is gone: on the chart's pods its DaemonSet is kept
   * off every node; on host processes its hostpod is killed (SIGKILL, as a crash: the kubelet keeps its registration
   * and cannot reach it).
   */
  void stopNodePlugin(String node);

  /** Puts the EBS node plugin back on {@code node} after {@link #stopNodePlugin}; returns once it is started. */
  void restoreNodePlugin(String node);

  /** Kills the controller replica {@code identity} at once (no graceful stop), as a crashed node would. */
  void killControllerReplica(String identity);

  /** Brings a killed replica back, as its Deployment would (on a real cluster the Deployment does it by itself). */
  void restoreControllerReplica(String identity);

  /** The last lines of every driver component's log, by component. */
  Map<String, String> logs(int lines);

  /** The chart's pods in {@code namespace}. */
  record ChartPods(KubernetesClient client, String namespace) implements DriverDeployment {

    @Override
    public void restartNodePlugin(String daemonSet, String node) {
      Pod plugin = nodePlugin(daemonSet, node);
      String oldUid = plugin.getMetadata().getUid();
      client.pods().inNamespace(namespace).resource(plugin).delete();
      Eventually.await("a new " + daemonSet + " pod ready on " + node, ClusterFixture.POD_READY, () -> {
        Pod now;
        try {
          now = nodePlugin(daemonSet, node);
        } catch (AssertionError notYet) {
          return false;
        }
        return !now.getMetadata().getUid().equals(oldUid) && Readiness.isPodReady(now);
      });
    }

    /** A node label no node has: the DaemonSet's pods are kept off every node while it is in its nodeSelector. */
    private static final String OFF_LABEL = "aws-csi-e2e/no-node-plugin";

    @Override
    public void stopNodePlugin(String node) {
      client.apps().daemonSets().inNamespace(namespace).withName(NODE_PLUGIN).edit(ds -> {
        var spec = ds.getSpec().getTemplate().getSpec();
        if (spec.getNodeSelector() == null) {
          spec.setNodeSelector(new LinkedHashMap<>());
        }
        spec.getNodeSelector().put(OFF_LABEL, "true");
        return ds;
      });
      Eventually.await("no " + NODE_PLUGIN + " pod on " + node, Duration.ofMinutes(3), () ->
          client.pods().inNamespace(namespace).withLabel("app", NODE_PLUGIN).withField("spec.nodeName", node).list()
              .getItems().isEmpty());
    }

    @Override
    public void restoreNodePlugin(String node) {
      DaemonSet ds = client.apps().daemonSets().inNamespace(namespace).withName(NODE_PLUGIN).get();
      var selector = ds == null ? null : ds.getSpec().getTemplate().getSpec().getNodeSelector();
      if (selector != null && selector.containsKey(OFF_LABEL)) {
        client.apps().daemonSets().inNamespace(namespace).withName(NODE_PLUGIN).edit(d -> {
          d.getSpec().getTemplate().getSpec().getNodeSelector().remove(OFF_LABEL);
          return d;
        });
      }
      Eventually.await("a " + NODE_PLUGIN + " pod ready on " + node, ClusterFixture.POD_READY, () -> {
        try {
          return Readiness.isPodReady(nodePlugin(NODE_PLUGIN, node));
        } catch (AssertionError none) {
          return false;
        }
      });
    }

    /** The running pod of DaemonSet {@code daemonSet} on {@code node} (its pods carry {@code app: <daemonSet>}). */
    Pod nodePlugin(String daemonSet, String node) {
      return client.pods().inNamespace(namespace).withLabel("app", daemonSet)
          .withField("spec.nodeName", node).list().getItems().stream()
          .filter(p -> p.getMetadata().getDeletionTimestamp() == null).findFirst()
          .orElseThrow(() -> new AssertionError("no " + daemonSet + " pod on node " + node));
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
      // Both drivers' pods, whatever the releases are called (one combined release, or upstream's two) and whatever
      // nameOverride says: their app labels are upstream's.
      for (Pod p : client.pods().inNamespace(namespace).withLabelIn("app", "ebs-csi-controller", NODE_PLUGIN,
          "efs-csi-controller", EFS_NODE_PLUGIN).list().getItems()) {
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
    public void restartNodePlugin(String daemonSet, String node) {
      String pod = daemonSet + "-" + node;
      // The plugin container: ebs-plugin of ebs-csi-node, efs-plugin of efs-csi-node.
      String container = daemonSet.substring(0, daemonSet.indexOf('-')) + "-plugin";
      Path pidFile = containerPid(pod, container);
      long old = readPid(pidFile);
      if (old <= 0) {
        throw new AssertionError("no " + container + " process of " + pod + " (" + pidFile + ")");
      }
      // SIGTERM, as the kubelet stops a container; hostpod starts it again.
      ProcessHandle.of(old).ifPresent(ProcessHandle::destroy);
      Eventually.await(container + " of " + pod + " restarted (new pid)", Duration.ofMinutes(2), () -> {
        long now = readPid(pidFile);
        return now > 0 && now != old && ProcessHandle.of(now).map(ProcessHandle::isAlive).orElse(false);
      });
    }

    @Override
    public void stopNodePlugin(String node) {
      killHostpod(NODE_PLUGIN + "-" + node);
    }

    @Override
    public void restoreNodePlugin(String node) {
      cluster.harness("hostpod-start", NODE_PLUGIN + "-" + node);
    }

    @Override
    public void killControllerReplica(String identity) {
      killHostpod(identity);
    }

    private void killHostpod(String identity) {
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
