package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSINodeDriver;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node with a small attach limit (issue 28): the chart's per-node-group setting as a user sets it, one more node
 * DaemonSet through {@code additionalDaemonSets} with {@code volumeAttachLimit: 2} on node 2 only and the main
 * DaemonSet kept off it ({@code node.affinity}); node 2's CSINode then reports 2 for ebs.csi.aws.com while the other
 * nodes keep theirs. Two pods with a volume each run there; the third waits with the scheduler's "exceed max volume
 * count"; when one pod and its volume are freed it runs. The release is rolled back afterwards. Needs the local
 * cluster with several nodes and the charts as pods (KUBE_LOCAL_NODES=3); skipped elsewhere.
 */
class VolumeAttachLimitTest extends ClusterCase {

  private static final String EBS = "ebs.csi.aws.com";
  private static final int LIMIT = 2;
  /** The kubelet takes the new count at the plugin's registration; the periodic update (10 s here) on top. */
  private static final Duration COUNT_UPDATE = Duration.ofMinutes(2);

  private ChartRelease release;
  private boolean upgraded;
  private String node;

  @Override
  void assumptions() {
    assumeTrue(ClusterFixture.target() instanceof ClusterTarget.Local local && local.cluster().nodeCount() >= 2,
        "needs the local cluster with several nodes (KUBE_LOCAL_NODES=3 make cluster-up)");
  }

  /** The release back to the revision before the case: pods first (the node plugin's preStop waits for detaches). */
  @AfterEach
  void rollBack() {
    if (!upgraded) {
      return;
    }
    cluster.client.pods().inNamespace(cluster.namespace).delete();
    Eventually.await("the case's pods gone", ClusterFixture.POD_READY,
        () -> cluster.client.pods().inNamespace(cluster.namespace).list().getItems().isEmpty());
    Eventually.await("no VolumeAttachment on " + node, Duration.ofMinutes(3),
        () -> cluster.client.storage().v1().volumeAttachments().list().getItems().stream()
            .noneMatch(va -> node.equals(va.getSpec().getNodeName())));
    release.helm("rollback", release.name(), "-n", ClusterFixture.DRIVER_NAMESPACE, "--wait", "--timeout", "5m");
    upgraded = false;
    cluster.awaitDriverRegistered(node, EBS);
  }

  @Test
  void aNodeWithASmallLimitTakesThatManyVolumesAndTheNextPodWaitsUntilOneIsFreed() {
    assumeTrue(ChartRelease.podsMode(cluster), "sets the chart's per-node DaemonSet: the charts as pods only");
    Steps steps = new Steps("attach limit " + LIMIT);
    release = ChartRelease.ebs(cluster.localCluster());
    List<String> names = List.of(cluster.localCluster().get("KUBE_LOCAL_NODE_NAMES").split(","));
    node = names.get(1);
    int before = count(node).orElseThrow(() -> new AssertionError("no CSINode count for " + EBS + " on " + node));
    int otherBefore = count(names.getFirst()).orElseThrow();
    assertThat(before).as("the default limit is above the small one").isGreaterThan(LIMIT + 1);

    steps.step("helm upgrade: ebs-csi-node-small (volumeAttachLimit " + LIMIT + ") on " + node + " only", () -> {
      upgraded = true;
      release.upgrade("--set-json", "node.affinity=" + hostAffinity("NotIn"),
          "--set-json", "additionalDaemonSets={\"small\":{\"volumeAttachLimit\":" + LIMIT + ",\"affinity\":"
              + hostAffinity("In") + "}}");
      Pod plugin = cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE)
          .withLabel("app", "ebs-csi-node-small").list().getItems().stream().filter(Readiness::isPodReady)
          .findFirst().orElseThrow(() -> new AssertionError("no Ready ebs-csi-node-small pod"));
      assertThat(plugin.getSpec().getNodeName()).isEqualTo(node);
      return plugin.getMetadata().getName();
    });
    steps.step("CSINode " + node + " allocatable count " + before + " -> " + LIMIT, () -> {
      Eventually.await("CSINode " + node + " count " + LIMIT + " for " + EBS, COUNT_UPDATE,
          () -> count(node).orElse(-1) == LIMIT);
      // The main DaemonSet's template changed (its affinity): its pods on the other nodes were replaced too, and
      // each registers again with its own count.
      Eventually.await("CSINode " + names.getFirst() + " count " + otherBefore + " again", COUNT_UPDATE,
          () -> count(names.getFirst()).orElse(-1) == otherBefore);
      return "node 1 back to " + otherBefore;
    });

    steps.step(LIMIT + " pods with a gp3 volume each on " + node + ": Ready", () -> {
      for (int i = 0; i < LIMIT; i++) {
        cluster.createPvc("v" + i, ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
        cluster.createPod("p" + i, "v" + i, "sleep 86400", node);
      }
      for (int i = 0; i < LIMIT; i++) {
        cluster.awaitReady("p" + i);
      }
      return LIMIT + " attached";
    });
    String waiting = "p" + LIMIT;
    String reason = steps.step("pod " + waiting + " with one more volume: Pending, the scheduler's reason", () -> {
      cluster.createPvc("v" + LIMIT, ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
      cluster.createPod(waiting, "v" + LIMIT, "sleep 86400", node);
      Eventually.await("a FailedScheduling event of " + waiting + " for the volume count", Duration.ofMinutes(2),
          () -> failedScheduling(waiting).filter(m -> m.contains("max volume count")).isPresent());
      return failedScheduling(waiting).orElseThrow();
    });
    assertThat(reason).contains("exceed max volume count");
    steps.step("still Pending 10 s later, nothing attached beyond " + LIMIT, () -> {
      Eventually.sleep(Duration.ofSeconds(10));
      assertThat(cluster.client.pods().inNamespace(cluster.namespace).withName(waiting).get().getStatus().getPhase())
          .isEqualTo("Pending");
      assertThat(cluster.client.storage().v1().volumeAttachments().list().getItems().stream()
          .filter(va -> node.equals(va.getSpec().getNodeName()))).hasSize(LIMIT);
    });
    Instant freed = Instant.now();
    steps.step("pod p0 and its volume freed: detached from " + node, () -> {
      String pv = cluster.pvc("v0").getSpec().getVolumeName();
      cluster.deletePod("p0");
      cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).withName("v0").delete();
      Eventually.await("VolumeAttachment of " + pv + " gone", Duration.ofMinutes(3),
          () -> cluster.attachment(pv, node).isEmpty());
    });
    steps.step("pod " + waiting + " Running on " + node, () -> {
      cluster.awaitReady(waiting);
      assertThat(cluster.nodeOf(waiting)).isEqualTo(node);
      return Duration.between(freed, Instant.now()).toMillis() + " ms after p0's deletion";
    });
    steps.step("pods gone, release rolled back, CSINode " + node + " count back to " + before, () -> {
      rollBack();
      Eventually.await("CSINode " + node + " count " + before, COUNT_UPDATE, () -> count(node).orElse(-1) == before);
    });
    steps.summary();
  }

  private String hostAffinity(String operator) {
    return "{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[{"
        + "\"matchExpressions\":[{\"key\":\"kubernetes.io/hostname\",\"operator\":\"" + operator + "\",\"values\":[\""
        + node + "\"]}]}]}}}";
  }

  private Optional<String> failedScheduling(String pod) {
    List<String> messages = cluster.eventsOf("Pod", pod).stream().filter(e -> "FailedScheduling".equals(e.getReason()))
        .map(Event::getMessage).toList();
    return messages.stream().filter(m -> m.contains("max volume count")).findFirst()
        .or(() -> messages.stream().findFirst());
  }

  private Optional<Integer> count(String name) {
    CSINode csiNode = cluster.client.storage().v1().csiNodes().withName(name).get();
    if (csiNode == null || csiNode.getSpec() == null || csiNode.getSpec().getDrivers() == null) {
      return Optional.empty();
    }
    return csiNode.getSpec().getDrivers().stream().filter(d -> EBS.equals(d.getName())).findFirst()
        .map(CSINodeDriver::getAllocatable).map(a -> a.getCount());
  }
}
