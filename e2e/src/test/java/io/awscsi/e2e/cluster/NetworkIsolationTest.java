package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Node;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The local cluster keeps every packet on this machine: the node advertises an address of its own on the loopback
 * interface (the kubelet refuses a 127/8 node IP; this one is delivered locally like 127.0.0.1, so logs and exec
 * stay on the machine), pods live on the bridge's range, the service range is a blackhole, host processes reach the
 * API server on 127.0.0.1, and the guard's counters show no packet to these ranges outside the bridge or loopback.
 */
class NetworkIsolationTest extends ClusterCase {

  @Override
  void assumptions() {
    assumeTrue(ClusterFixture.target() instanceof ClusterTarget.Local, "checks the local cluster's host network");
  }

  @Test
  void nothingLeavesTheMachine() throws Exception {
    LocalCluster local = cluster.localCluster();
    Steps steps = new Steps("network");
    Map<String, Long> before = steps.step("guard counters read", local::packetCounters);
    steps.step("the node's address is on the loopback interface (delivered locally)", () -> {
      Node node = cluster.schedulableNodes().getFirst();
      String nodeIp = local.get("KUBE_LOCAL_NODE_IP");
      assertThat(node.getStatus().getAddresses()).filteredOn(a -> "InternalIP".equals(a.getType()))
          .extracting(a -> a.getAddress()).containsExactly(nodeIp);
      assertThat(command("ip", "-o", "addr", "show", "dev", local.get("KUBE_LOCAL_NODE_LINK")))
          .contains("inet " + nodeIp + "/32");
      assertThat(command("ip", "route", "get", nodeIp)).startsWith("local " + nodeIp);
      return nodeIp;
    });
    steps.step("a pod on the bridge's range; logs and exec over loopback", () -> {
      cluster.client.pods().inNamespace(cluster.namespace).resource(new io.fabric8.kubernetes.api.model.PodBuilder()
          .withNewMetadata().withName("probe").endMetadata().withNewSpec().withTerminationGracePeriodSeconds(1L)
          .addNewContainer().withName("app").withImage(local.busyboxImage()).withImagePullPolicy("IfNotPresent")
          .withCommand("sh", "-c", "echo hello-from-the-pod; sleep 86400").endContainer().endSpec().build()).create();
      cluster.awaitReady("probe");
      String ip = cluster.client.pods().inNamespace(cluster.namespace).withName("probe").get().getStatus().getPodIP();
      assertThat(ip).startsWith(local.get("KUBE_LOCAL_POD_CIDR").substring(0, local.get("KUBE_LOCAL_POD_CIDR")
          .lastIndexOf('.') + 1));
      assertThat(cluster.client.pods().inNamespace(cluster.namespace).withName("probe").getLog())
          .contains("hello-from-the-pod");
      // No default route in a pod: a packet off the pod and service ranges cannot even leave its network namespace.
      assertThat(cluster.exec("probe", "ip route | grep -c default || true")).isEqualTo("0");
      return ip;
    });
    String serviceIp = cluster.client.services().inNamespace("default").withName("kubernetes").get().getSpec()
        .getClusterIP();
    steps.step("the service range is a blackhole: connecting to " + serviceIp + " fails here", () -> {
      assertThat(command("ip", "route", "show", "type", "blackhole"))
          .contains("blackhole " + local.get("KUBE_LOCAL_SERVICE_CIDR"));
      assertThatThrownBy(() -> {
        try (Socket s = new Socket()) {
          s.connect(new InetSocketAddress(serviceIp, 443), 2_000);
        }
      }).isInstanceOf(IOException.class);
    });
    if (local.hostProcesses()) {
      steps.step("host processes of hostNetwork pods reach the API server on 127.0.0.1", () -> {
        String environ = environOf(Path.of(local.get("KUBE_LOCAL_HOSTPOD_RUN"), "efs-csi-node-"
            + local.get("KUBE_LOCAL_NODE"), "efs-plugin.pid"));
        assertThat(environ).contains("KUBERNETES_SERVICE_HOST=127.0.0.1");
      });
    } else {
      // The chart's pods: node pods on the host network reach the API server on 127.0.0.1; controller pods stay on
      // the bridge (their Service address is DNATed there, see e2e/kube-local/driver-chart.sh).
      steps.step("node pods: hostNetwork, API server on 127.0.0.1; controller pods on the bridge", () -> {
        String prefix = local.get("KUBE_LOCAL_POD_CIDR").substring(0, local.get("KUBE_LOCAL_POD_CIDR")
            .lastIndexOf('.') + 1);
        int nodes = 0;
        int controllers = 0;
        for (var p : cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE).list().getItems()) {
          String app = p.getMetadata().getLabels().getOrDefault("app", "");
          if (app.endsWith("-csi-node")) {
            nodes++;
            assertThat(p.getSpec().getHostNetwork()).as("hostNetwork of %s", p.getMetadata().getName()).isTrue();
            assertThat(p.getSpec().getContainers().getFirst().getEnv())
                .anyMatch(e -> "KUBERNETES_SERVICE_HOST".equals(e.getName()) && "127.0.0.1".equals(e.getValue()));
          } else if (app.endsWith("-csi-controller")) {
            controllers++;
            assertThat(p.getSpec().getHostNetwork()).as("hostNetwork of %s", p.getMetadata().getName())
                .isNotEqualTo(Boolean.TRUE);
            assertThat(p.getStatus().getPodIP()).as("IP of %s", p.getMetadata().getName()).startsWith(prefix);
          }
        }
        assertThat(nodes).isEqualTo(2);
        assertThat(controllers).isEqualTo(4);
      });
    }
    Map<String, Long> after = steps.step("no packet to the pod or service range outside the bridge",
        local::packetCounters);
    assertThat(after).isEqualTo(before).containsEntry("inbound", 0L).containsEntry("outbound", 0L);
    steps.summary();
  }

  private static String command(String... command) {
    try {
      Process p = new ProcessBuilder(command).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor();
      return out;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String environOf(Path pidFile) {
    try {
      String pid = Files.readString(pidFile).trim();
      // The plugin's launcher script execs the JVM, so the PID is the JVM's.
      return new String(Files.readAllBytes(Path.of("/proc", pid, "environ")), StandardCharsets.UTF_8)
          .replace('\0', '\n');
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the environment of " + pidFile + ": " + e.getMessage(), e);
    }
  }
}
