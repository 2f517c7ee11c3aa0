package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Draining the node a pod runs on: the pod is evicted, its Deployment starts it on another node in the same zone, and
 * the EBS volume follows it (detach, attach, stage there) with its data. On the way, the node plugin of the drained
 * node is deleted while the volume is still attached there (what a node's shutdown after a drain does): its preStop
 * hook ({@code aws-csi-driver pre-stop-hook}) keeps it serving until the volume is unmounted and detached, so the
 * kubelet can still unstage and the volume is not left for Kubernetes' 6-minute force detach (upstream
 * kubernetes-sigs/aws-ebs-csi-driver#1665). Needs two schedulable nodes in one zone (KUBE_LOCAL_NODES=3 make
 * cluster-up: two in us-east-1a); skipped on one node.
 */
class NodeDrainTest extends ClusterCase {

  /** How long the deleted node plugin must still be there while its node's volume is attached. */
  private static final Duration HELD = Duration.ofSeconds(8);

  private String cordoned;

  @Override
  void assumptions() {
    Map<String, Long> nodesPerZone;
    try (KubernetesClient client = ClusterFixture.target().newClient()) {
      nodesPerZone = client.nodes().list().getItems().stream()
          .filter(n -> !Boolean.TRUE.equals(n.getSpec().getUnschedulable()) && ClusterFixture.zoneOf(n) != null)
          .collect(Collectors.groupingBy(ClusterFixture::zoneOf, Collectors.counting()));
    }
    assumeTrue(nodesPerZone.values().stream().anyMatch(n -> n >= 2), "needs two schedulable nodes in one zone (an EBS"
        + " volume cannot leave its zone); nodes per zone: " + nodesPerZone);
  }

  @AfterEach
  void uncordon() {
    if (cordoned != null) {
      setUnschedulable(cordoned, false);
    }
  }

  @Test
  void drainedPodMovesWithItsVolumeAndData() {
    Steps steps = new Steps("drain");
    Map<String, List<Node>> byZone = cluster.schedulableNodes().stream()
        .collect(Collectors.groupingBy(n -> String.valueOf(ClusterFixture.zoneOf(n))));
    String zone = byZone.entrySet().stream().filter(e -> e.getValue().size() >= 2).map(Map.Entry::getKey)
        .sorted().findFirst().orElseThrow();
    Pod first = steps.step("Deployment of 1 in " + zone + " with a gp3 volume: pod Ready", () -> {
      cluster.createPvc("data", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
      PodSpec spec = ClusterFixture.podSpec("data", "sleep 86400", null);
      // The zone with two nodes: the volume is made where the pod is scheduled (WaitForFirstConsumer).
      spec.setAffinity(new io.fabric8.kubernetes.api.model.AffinityBuilder().withNewNodeAffinity()
          .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm()
          .withMatchExpressions(new NodeSelectorRequirementBuilder().withKey("topology.kubernetes.io/zone")
              .withOperator("In").withValues(zone).build())
          .endNodeSelectorTerm().endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build());
      cluster.client.apps().deployments().inNamespace(cluster.namespace).resource(new DeploymentBuilder()
          .withNewMetadata().withName("app").endMetadata()
          .withNewSpec().withReplicas(1).withNewStrategy().withType("Recreate").endStrategy()
          .withNewSelector().addToMatchLabels("app", "drain").endSelector()
          .withNewTemplate().withNewMetadata().addToLabels("app", "drain").endMetadata()
          .withSpec(spec).endTemplate().endSpec().build()).create();
      return readyPod(null);
    });
    String node = first.getSpec().getNodeName();
    String pv = cluster.pvc("data").getSpec().getVolumeName();
    String token = ClusterFixture.token();
    steps.step("data written on " + node, () -> {
      cluster.exec(first.getMetadata().getName(), "echo " + token + " > " + ClusterFixture.MOUNT + "/file && sync");
    });

    steps.step("cordon " + node, () -> {
      setUnschedulable(node, true);
      cordoned = node;
    });
    // The node going away after the drain: its EBS node plugin is deleted while the volume is still attached there.
    Pod plugin = ((DriverDeployment.ChartPods) cluster.driver()).nodePlugin(DriverDeployment.NODE_PLUGIN, node);
    String pluginUid = plugin.getMetadata().getUid();
    steps.step("node plugin deleted: preStop holds it while the volume is attached (" + HELD.toSeconds() + " s)",
        () -> {
          cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE).resource(plugin).delete();
          Eventually.sleep(HELD);
          assertThat(pluginPod(pluginUid)).as("the deleted node plugin, held by its preStop hook").isNotNull();
          assertThat(cluster.attachment(pv, node)).as("the volume's attachment to " + node).isPresent();
        });

    Instant evicted = Instant.now();
    steps.step("pod evicted (kubectl drain: the Eviction API)", () -> {
      assertThat(cluster.client.pods().inNamespace(cluster.namespace).resource(first).evict()).isTrue();
    });
    steps.step("volume detached from " + node + ", then the held node plugin ends", () -> {
      Eventually.await("VolumeAttachment of " + pv + " on " + node + " gone", Duration.ofMinutes(3),
          () -> cluster.attachment(pv, node).isEmpty());
      Instant detached = Instant.now();
      Eventually.await("the old node plugin on " + node + " gone", Duration.ofMinutes(1),
          () -> pluginPod(pluginUid) == null);
      return "detached " + Duration.between(evicted, detached).toMillis() + " ms after the eviction";
    });
    Pod moved = steps.step("pod Running on the other node of " + zone + " (drain to Running)",
        () -> readyPod(first.getMetadata().getUid()));
    long drainToRunning = Duration.between(evicted, Instant.now()).toMillis();
    String target = moved.getSpec().getNodeName();
    assertThat(target).isNotEqualTo(node);
    assertThat(ClusterFixture.zoneOf(cluster.client.nodes().withName(target).get())).isEqualTo(zone);
    steps.step("data intact on " + target + " (" + drainToRunning + " ms from eviction to Ready)", () -> {
      assertThat(cluster.exec(moved.getMetadata().getName(), "cat " + ClusterFixture.MOUNT + "/file"))
          .isEqualTo(token);
    });
    steps.step("a new node plugin Ready on " + node, () -> {
      cluster.awaitDriverRegistered(node, "ebs.csi.aws.com");
      Eventually.await("a ready " + DriverDeployment.NODE_PLUGIN + " pod on " + node, ClusterFixture.POD_READY,
          () -> {
            try {
              return Readiness.isPodReady(((DriverDeployment.ChartPods) cluster.driver())
                  .nodePlugin(DriverDeployment.NODE_PLUGIN, node));
            } catch (AssertionError notYet) {
              return false;
            }
          });
    });
    steps.summary();
  }

  private Pod pluginPod(String uid) {
    return cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE)
        .withLabel("app", DriverDeployment.NODE_PLUGIN).list().getItems().stream()
        .filter(p -> uid.equals(p.getMetadata().getUid())).findFirst().orElse(null);
  }


  /** Waits for the Deployment's ready pod that is not {@code notUid}, and returns it. */
  private Pod readyPod(String notUid) {
    Eventually.await("a ready pod of the deployment", ClusterFixture.POD_READY, () -> pods().stream()
        .anyMatch(p -> !p.getMetadata().getUid().equals(notUid) && Readiness.isPodReady(p)));
    return pods().stream().filter(p -> !p.getMetadata().getUid().equals(notUid) && Readiness.isPodReady(p))
        .findFirst().orElseThrow();
  }

  private List<Pod> pods() {
    return cluster.client.pods().inNamespace(cluster.namespace).withLabel("app", "drain").list().getItems();
  }

  private void setUnschedulable(String node, boolean unschedulable) {
    cluster.client.nodes().withName(node).edit(n -> {
      n.getSpec().setUnschedulable(unschedulable ? Boolean.TRUE : null);
      return n;
    });
  }
}
