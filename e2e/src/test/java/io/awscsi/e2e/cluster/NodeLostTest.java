package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node lost (its kubelet, runtime and containers stopped at once, its mounts gone, as when an instance dies) while
 * a pod writes to an EBS volume there: with the {@code node.kubernetes.io/out-of-service} taint (what an operator or
 * a node-shutdown handler puts on a node known to be off) the pod is deleted at once and the attach-detach controller
 * detaches the volume without waiting out its 6 minutes, so the replacement pod runs on the other node of the zone
 * with the data. Needs the local cluster in multi-node mode (KUBE_LOCAL_NODES=3: node 2 is lost, node 1 takes over,
 * both in us-east-1a); skipped elsewhere.
 */
class NodeLostTest extends ClusterCase {

  static final String OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";

  private String lost;
  private boolean stopped;

  @Override
  void assumptions() {
    assumeTrue(ClusterFixture.target() instanceof ClusterTarget.Local local && local.cluster().nodeCount() >= 2,
        "needs the local cluster with several nodes (KUBE_LOCAL_NODES=3 make cluster-up)");
  }

  /** The lost node back: taint off, powered on, Ready (the next case finds three nodes). */
  @AfterEach
  void powerOn() {
    if (lost == null) {
      return;
    }
    // The untainted case deletes the Node; its kubelet registers it again when it starts.
    if (cluster.client.nodes().withName(lost).get() != null) {
      cluster.client.nodes().withName(lost).edit(n -> {
        List<Taint> taints = n.getSpec().getTaints() == null ? new ArrayList<>()
            : new ArrayList<>(n.getSpec().getTaints());
        taints.removeIf(t -> OUT_OF_SERVICE.equals(t.getKey()));
        n.getSpec().setTaints(taints);
        return n;
      });
    }
    if (stopped) {
      cluster.localCluster().harness("node-start", "2");
    }
  }

  @Test
  void withTheOutOfServiceTaintThePodRunsElsewhereWithItsData() {
    Steps steps = new Steps("node lost, out-of-service");
    List<String> names = List.of(cluster.localCluster().get("KUBE_LOCAL_NODE_NAMES").split(","));
    lost = names.get(1);
    String survivor = names.getFirst();
    String zone = ClusterFixture.zoneOf(cluster.client.nodes().withName(lost).get());
    assertThat(ClusterFixture.zoneOf(cluster.client.nodes().withName(survivor).get())).isEqualTo(zone);

    Pod first = steps.step("Deployment of 1 on " + lost + " with a gp3 volume: Ready", () -> {
      createDeployment(zone, false);
      return readyPod(null);
    });
    assertThat(first.getSpec().getNodeName()).as("the first pod's node").isEqualTo(lost);
    String pv = cluster.pvc("data").getSpec().getVolumeName();
    steps.step("the pod writes a line a second", () -> {
      Eventually.await("lines written", Duration.ofSeconds(30), () -> lines(first) >= 3);
      return lines(first) + " lines";
    });

    Instant off = Instant.now();
    steps.step("node " + lost + " powered off (kubelet, containerd, containers, mounts)", () -> {
      cluster.localCluster().harness("node-stop", "2");
      stopped = true;
    });
    steps.step("node " + lost + " NotReady (the node lifecycle controller's grace period)", () -> {
      Eventually.await(lost + " not Ready", Duration.ofMinutes(3),
          () -> !Readiness.isNodeReady(cluster.client.nodes().withName(lost).get()));
      return Duration.between(off, Instant.now()).toSeconds() + " s after the power-off";
    });
    Instant tainted = Instant.now();
    steps.step("taint " + OUT_OF_SERVICE + "=nodeshutdown:NoExecute on " + lost, () -> {
      cluster.client.nodes().withName(lost).edit(n -> {
        List<Taint> taints = n.getSpec().getTaints() == null ? new ArrayList<>()
            : new ArrayList<>(n.getSpec().getTaints());
        taints.add(new TaintBuilder().withKey(OUT_OF_SERVICE).withValue("nodeshutdown").withEffect("NoExecute")
            .build());
        n.getSpec().setTaints(taints);
        return n;
      });
    });
    steps.step("the pod on " + lost + " force-deleted and its volume force-detached", () -> {
      Eventually.await("the old pod gone", Duration.ofMinutes(2),
          () -> pods().stream().noneMatch(p -> p.getMetadata().getUid().equals(first.getMetadata().getUid())));
      Eventually.await("VolumeAttachment of " + pv + " on " + lost + " gone", Duration.ofMinutes(3),
          () -> cluster.attachment(pv, lost).isEmpty());
      return Duration.between(tainted, Instant.now()).toMillis() + " ms after the taint";
    });
    Pod moved = steps.step("replacement pod Running on " + survivor, () -> readyPod(first.getMetadata().getUid()));
    long taintToRunning = Duration.between(tainted, Instant.now()).toMillis();
    assertThat(moved.getSpec().getNodeName()).isEqualTo(survivor);
    steps.step("data intact, the new pod writing after it (" + taintToRunning + " ms taint to Ready)", () -> {
      String log = cluster.exec(moved.getMetadata().getName(), "cat " + ClusterFixture.MOUNT + "/log");
      List<String> numbers = log.lines().toList();
      assertThat(numbers).as("the old pod's lines kept").contains("1", "2", "3");
      return numbers.size() + " lines";
    });
    steps.step("EC2: the volume attached to one instance only", () -> {
      String volumeId = cluster.client.persistentVolumes().withName(pv).get().getSpec().getCsi().getVolumeHandle();
      try (var ec2 = cluster.localCluster().ec2()) {
        var attachments = ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst().attachments();
        assertThat(attachments).hasSize(1);
        return attachments.getFirst().instanceId();
      }
    });
    steps.step("node " + lost + " back: taint removed, powered on, Ready", this::powerOn);
    lost = null;
    steps.summary();
  }

  /**
   * The same loss without the taint: what a user waits for. The pod tolerates the node's unreachable taints for 10 s
   * only (the default is 300 s), so the Deployment's replacement is made soon; the replacement then waits for the
   * volume. While the lost pod object exists, the attach-detach controller keeps the volume on the lost node: its
   * force detach (maxWaitForUnmountDuration, 6 minutes) counts from the pod's deletion, and the pod of a node that
   * stays (stopped, hung) is never deleted, so nothing moves until someone acts. When an EC2 instance is terminated,
   * the cloud node lifecycle controller deletes its Node; the pod garbage collector then deletes the node's pods (after
   * its 40 s quarantine) and the force detach follows 6 minutes later: upstream's "6 minutes to detach after the node
   * is terminated" (kubernetes-sigs/aws-ebs-csi-driver#1665, #2318). The case shows the first part held for 90 s,
   * then deletes the Node as that controller would and measures the rest; bounded at 12 minutes.
   */
  @Test
  void withoutTheTaintTheVolumeWaitsForTheForceDetach() {
    assumeTrue("1".equals(System.getenv("E2E_NODE_LOST_UNTAINTED")), "waits out the 6-minute force detach after the"
        + " Node's deletion (about 9-10 min): E2E_NODE_LOST_UNTAINTED=1 runs it");
    Steps steps = new Steps("node lost, no taint");
    List<String> names = List.of(cluster.localCluster().get("KUBE_LOCAL_NODE_NAMES").split(","));
    lost = names.get(1);
    String survivor = names.getFirst();
    String zone = ClusterFixture.zoneOf(cluster.client.nodes().withName(lost).get());
    Pod first = steps.step("Deployment of 1 on " + lost + " (unreachable tolerated 10 s): Ready", () -> {
      createDeployment(zone, true);
      return readyPod(null);
    });
    assertThat(first.getSpec().getNodeName()).isEqualTo(lost);
    String pv = cluster.pvc("data").getSpec().getVolumeName();
    steps.step("the pod writes a line a second", () -> {
      Eventually.await("lines written", Duration.ofSeconds(30), () -> lines(first) >= 3);
    });
    Instant off = Instant.now();
    steps.step("node " + lost + " powered off", () -> {
      cluster.localCluster().harness("node-stop", "2");
      stopped = true;
    });
    steps.step("a replacement pod made (the lost one evicted after its 10 s toleration)", () -> {
      Eventually.await("a second pod", Duration.ofMinutes(3), () -> pods().stream()
          .anyMatch(p -> !p.getMetadata().getUid().equals(first.getMetadata().getUid())));
      return Duration.between(off, Instant.now()).toSeconds() + " s after the power-off";
    });
    String waitReason = steps.step("the replacement waits: the reason from its events", () -> {
      Eventually.await("a FailedAttachVolume event", Duration.ofMinutes(3), () -> cluster.events().stream()
          .anyMatch(e -> "FailedAttachVolume".equals(e.getReason())));
      return cluster.events().stream().filter(e -> "FailedAttachVolume".equals(e.getReason()))
          .map(e -> e.getMessage()).findFirst().orElseThrow();
    });
    // The attach-detach controller's words for it: "Multi-Attach error for volume ..." up to 1.3x (1.32 here), "Waiting
    // for detach for volume ... Volume is already used by pod(s) ..." in newer releases (1.37's reconciler).
    assertThat(waitReason).satisfiesAnyOf(r -> assertThat(r).containsIgnoringCase("multi-attach"),
        r -> assertThat(r).containsIgnoringCase("waiting for detach"));
    steps.step("90 s later the volume is still attached to " + lost + " and the replacement not Running (the lost "
        + "pod object holds it)", () -> {
      Eventually.sleep(Duration.ofSeconds(90));
      assertThat(cluster.attachment(pv, lost)).as("the VolumeAttachment of the lost node").isPresent();
      assertThat(pods()).noneMatch(p -> !p.getMetadata().getUid().equals(first.getMetadata().getUid())
          && Readiness.isPodReady(p));
    });
    Instant deleted = Instant.now();
    steps.step("the Node " + lost + " deleted (what the cloud node lifecycle controller does for a terminated "
        + "instance)", () -> {
      cluster.client.nodes().withName(lost).delete();
    });
    steps.step("replacement Running on " + survivor + " after the force detach (bound 12 min)", () -> {
      Eventually.await("a ready replacement", Duration.ofMinutes(12), () -> pods().stream()
          .anyMatch(p -> !p.getMetadata().getUid().equals(first.getMetadata().getUid()) && Readiness.isPodReady(p)));
    });
    Pod moved = pods().stream().filter(p -> !p.getMetadata().getUid().equals(first.getMetadata().getUid())
        && Readiness.isPodReady(p)).findFirst().orElseThrow();
    assertThat(moved.getSpec().getNodeName()).isEqualTo(survivor);
    long fromDeletion = Duration.between(deleted, Instant.now()).toSeconds();
    long fromOff = Duration.between(off, Instant.now()).toSeconds();
    steps.step("data intact (" + fromDeletion + " s from the Node's deletion, " + fromOff + " s from the power-off, "
        + "to Ready)", () -> {
      assertThat(cluster.exec(moved.getMetadata().getName(), "cat " + ClusterFixture.MOUNT + "/log").lines())
          .contains("1", "2", "3");
    });
    assertThat(cluster.attachment(pv, lost)).isEmpty();
    steps.step("node " + lost + " back: powered on, registered again, Ready", this::powerOn);
    lost = null;
    steps.summary();
  }

  private void createDeployment(String zone, boolean shortTolerations) {
    cluster.createPvc("data", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
    PodSpec spec = ClusterFixture.podSpec("data",
        "i=0; while true; do i=$((i+1)); echo $i >> " + ClusterFixture.MOUNT + "/log; sync; sleep 1; done", null);
    // Required: the zone; preferred: the node to lose (so the first pod lands there).
    spec.setAffinity(new AffinityBuilder().withNewNodeAffinity()
        .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm()
        .withMatchExpressions(new NodeSelectorRequirementBuilder().withKey("topology.kubernetes.io/zone")
            .withOperator("In").withValues(zone).build()).endNodeSelectorTerm()
        .endRequiredDuringSchedulingIgnoredDuringExecution()
        .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(100).withNewPreference()
        .withMatchExpressions(new NodeSelectorRequirementBuilder().withKey("kubernetes.io/hostname")
            .withOperator("In").withValues(lost).build()).endPreference()
        .endPreferredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build());
    if (shortTolerations) {
      spec.setTolerations(List.of(
          new io.fabric8.kubernetes.api.model.TolerationBuilder().withKey("node.kubernetes.io/unreachable")
              .withOperator("Exists").withEffect("NoExecute").withTolerationSeconds(10L).build(),
          new io.fabric8.kubernetes.api.model.TolerationBuilder().withKey("node.kubernetes.io/not-ready")
              .withOperator("Exists").withEffect("NoExecute").withTolerationSeconds(10L).build()));
    }
    // RollingUpdate (the default) without the taint: a replacement is made as soon as the lost pod is being deleted.
    cluster.client.apps().deployments().inNamespace(cluster.namespace).resource(new DeploymentBuilder()
        .withNewMetadata().withName("app").endMetadata()
        .withNewSpec().withReplicas(1)
        .withNewSelector().addToMatchLabels("app", "lost").endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", "lost").endMetadata()
        .withSpec(spec).endTemplate().endSpec().build()).create();
  }

  private int lines(Pod pod) {
    try {
      return (int) cluster.exec(pod.getMetadata().getName(), "cat " + ClusterFixture.MOUNT + "/log").lines().count();
    } catch (RuntimeException e) {
      return 0;
    }
  }

  private Pod readyPod(String notUid) {
    Eventually.await("a ready pod of the deployment", ClusterFixture.POD_READY, () -> pods().stream()
        .anyMatch(p -> !p.getMetadata().getUid().equals(notUid) && Readiness.isPodReady(p)));
    return pods().stream().filter(p -> !p.getMetadata().getUid().equals(notUid) && Readiness.isPodReady(p))
        .findFirst().orElseThrow();
  }

  private List<Pod> pods() {
    return cluster.client.pods().inNamespace(cluster.namespace).withLabel("app", "lost").list().getItems();
  }
}
