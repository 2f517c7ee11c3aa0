package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Draining the node a pod runs on: the pod is evicted, its Deployment starts it on another node in the same zone, and
 * the EBS volume follows it (detach, attach, stage there) with its data.
 */
class NodeDrainTest extends ClusterCase {

  private String cordoned;

  @AfterEach
  void uncordon() {
    if (cordoned != null) {
      setUnschedulable(cordoned, false);
    }
  }

  @Test
  void drainedPodMovesWithItsVolumeAndData() {
    // Before anything is made: a cluster without two schedulable nodes in one zone cannot show the move.
    Map<String, Long> nodesPerZone = cluster.schedulableNodes().stream()
        .collect(Collectors.groupingBy(n -> String.valueOf(ClusterFixture.zoneOf(n)), Collectors.counting()));
    assumeTrue(nodesPerZone.values().stream().anyMatch(n -> n >= 2), "needs two schedulable nodes in one zone (an EBS"
        + " volume cannot leave its zone); nodes per zone: " + nodesPerZone);
    cluster.createPvc("data", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
    cluster.client.apps().deployments().inNamespace(cluster.namespace).resource(new DeploymentBuilder()
        .withNewMetadata().withName("app").endMetadata()
        .withNewSpec().withReplicas(1).withNewStrategy().withType("Recreate").endStrategy()
        .withNewSelector().addToMatchLabels("app", "drain").endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", "drain").endMetadata()
        .withSpec(ClusterFixture.podSpec("data", "sleep 86400", null)).endTemplate().endSpec().build()).create();
    Pod first = readyPod(null);
    String node = first.getSpec().getNodeName();
    String zone = ClusterFixture.zoneOf(cluster.client.nodes().withName(node).get());
    List<Node> sameZone = cluster.schedulableNodes().stream()
        .filter(n -> !n.getMetadata().getName().equals(node) && Objects.equals(ClusterFixture.zoneOf(n), zone))
        .toList();
    assumeTrue(!sameZone.isEmpty(), "needs a second schedulable node in zone " + zone
        + " (an EBS volume cannot leave its zone)");
    String token = ClusterFixture.token();
    cluster.exec(first.getMetadata().getName(), "echo " + token + " > " + ClusterFixture.MOUNT + "/file && sync");

    // kubectl drain, for this one pod: cordon, then evict through the Eviction API (honours PodDisruptionBudgets).
    setUnschedulable(node, true);
    cordoned = node;
    assertThat(cluster.client.pods().inNamespace(cluster.namespace).resource(first).evict()).isTrue();

    Pod moved = readyPod(first.getMetadata().getUid());
    assertThat(moved.getSpec().getNodeName()).isNotEqualTo(node);
    assertThat(cluster.exec(moved.getMetadata().getName(), "cat " + ClusterFixture.MOUNT + "/file")).isEqualTo(token);
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
