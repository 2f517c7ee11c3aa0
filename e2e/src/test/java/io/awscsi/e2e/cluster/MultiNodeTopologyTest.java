package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.awscsi.diagnose.DiagnoseCommand;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.api.model.TopologySelectorLabelRequirementBuilder;
import io.fabric8.kubernetes.api.model.TopologySelectorTermBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Zonal topology across nodes: a StatefulSet of three with WaitForFirstConsumer volumes spread over the zones and
 * nodes gets each volume made in its pod's zone, and its pods, deleted and recreated, find their data again; a class
 * whose allowed topology has no node leaves its claim Pending with the scheduler's reason, which {@code diagnose}
 * names. Needs nodes in two zones (KUBE_LOCAL_NODES=3 make cluster-up); skipped on one node.
 */
class MultiNodeTopologyTest extends ClusterCase {

  private static final String ZONE_KEY = "topology.kubernetes.io/zone";

  @Override
  void assumptions() {
    try (KubernetesClient client = ClusterFixture.target().newClient()) {
      Set<String> zones = client.nodes().list().getItems().stream().map(ClusterFixture::zoneOf)
          .filter(z -> z != null).collect(Collectors.toSet());
      assumeTrue(zones.size() >= 2, "needs schedulable nodes in two zones; zones: " + zones);
    }
  }

  @Test
  void statefulSetVolumesAreMadeInTheirPodsZonesAndKeepTheirData() {
    Steps steps = new Steps("sts wffc spread");
    int replicas = Math.min(3, cluster.schedulableNodes().size());
    PodSpec spec = ClusterFixture.podSpec("data", "sleep 86400", null);
    // The claim templates name the volume "data"; the pod spec's own volume of that name goes.
    spec.setVolumes(List.of());
    spec.setTopologySpreadConstraints(List.of(
        new TopologySpreadConstraintBuilder().withMaxSkew(1).withTopologyKey(ZONE_KEY)
            .withWhenUnsatisfiable("DoNotSchedule")
            .withLabelSelector(new LabelSelectorBuilder().addToMatchLabels("app", "sts").build()).build(),
        new TopologySpreadConstraintBuilder().withMaxSkew(1).withTopologyKey("kubernetes.io/hostname")
            .withWhenUnsatisfiable("DoNotSchedule")
            .withLabelSelector(new LabelSelectorBuilder().addToMatchLabels("app", "sts").build()).build()));
    steps.step("StatefulSet of " + replicas + " (gp3, WaitForFirstConsumer, spread over zones and nodes): all Ready",
        () -> {
          cluster.client.apps().statefulSets().inNamespace(cluster.namespace).resource(new StatefulSetBuilder()
              .withNewMetadata().withName("sts").endMetadata()
              .withNewSpec().withReplicas(replicas).withServiceName("sts").withPodManagementPolicy("Parallel")
              .withNewSelector().addToMatchLabels("app", "sts").endSelector()
              .withNewTemplate().withNewMetadata().addToLabels("app", "sts").endMetadata().withSpec(spec)
              .endTemplate()
              .withVolumeClaimTemplates(new PersistentVolumeClaimBuilder().withNewMetadata().withName("data")
                  .endMetadata().withNewSpec().withStorageClassName(ClusterFixture.GP3)
                  .withAccessModes("ReadWriteOnce").withNewResources().addToRequests("storage", new Quantity("1Gi"))
                  .endResources().endSpec().build())
              .endSpec().build()).create();
          awaitAllReady(replicas, Set.of());
        });
    Map<String, String> nodeOf = new TreeMap<>();
    Map<String, String> tokens = new TreeMap<>();
    steps.step("each volume in its pod's zone", () -> {
      for (Pod p : pods()) {
        String name = p.getMetadata().getName();
        String node = p.getSpec().getNodeName();
        nodeOf.put(name, node);
        String zone = ClusterFixture.zoneOf(cluster.client.nodes().withName(node).get());
        PersistentVolume pv = cluster.client.persistentVolumes().withName(
            cluster.pvc("data-" + name).getSpec().getVolumeName()).get();
        Map<String, String> required = ClusterFixture.requiredTopology(pv);
        assertThat(required).as("the topology %s's volume requires", name).containsValue(zone);
      }
      assertThat(nodeOf.values()).as("one pod per node (hostname spread)").doesNotHaveDuplicates();
      return nodeOf;
    });
    steps.step("data written by every pod", () -> {
      for (String name : nodeOf.keySet()) {
        String token = ClusterFixture.token();
        tokens.put(name, token);
        cluster.exec(name, "echo " + token + " > " + ClusterFixture.MOUNT + "/file && sync");
      }
    });
    Set<String> oldUids = pods().stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
    steps.step("pods deleted and recreated by the StatefulSet: all Ready", () -> {
      cluster.client.pods().inNamespace(cluster.namespace).withLabel("app", "sts").delete();
      awaitAllReady(replicas, oldUids);
    });
    steps.step("every pod reads its own data back", () -> {
      for (var e : tokens.entrySet()) {
        assertThat(cluster.exec(e.getKey(), "cat " + ClusterFixture.MOUNT + "/file")).as(e.getKey())
            .isEqualTo(e.getValue());
      }
    });
    steps.step("StatefulSet scaled to 0: every volume detached", () -> {
      cluster.client.apps().statefulSets().inNamespace(cluster.namespace).withName("sts").scale(0);
      Eventually.await("no VolumeAttachment of the StatefulSet's volumes", Duration.ofMinutes(3), () -> {
        Set<String> pvs = nodeOf.keySet().stream().map(n -> cluster.pvc("data-" + n).getSpec().getVolumeName())
            .collect(Collectors.toSet());
        return cluster.client.storage().v1().volumeAttachments().list().getItems().stream()
            .noneMatch(va -> pvs.contains(va.getSpec().getSource().getPersistentVolumeName()));
      });
    });
    steps.summary();
  }

  @Test
  void aClassWhoseAllowedTopologyHasNoNodeLeavesItsClaimPendingWithTheReason() {
    Steps steps = new Steps("no node in allowed topology");
    Set<String> zones = cluster.schedulableNodes().stream().map(ClusterFixture::zoneOf).collect(Collectors.toSet());
    String nowhere = "us-east-1f";
    assertThat(zones).doesNotContain(nowhere);
    String sc = cluster.namespace + "-nowhere";
    steps.step("class gp3 allowed only in " + nowhere + " (no node there); claim and pod made", () -> {
      cluster.createClusterScoped(new StorageClassBuilder().withNewMetadata().withName(sc).endMetadata()
          .withProvisioner("ebs.csi.aws.com").withParameters(Map.of("type", "gp3"))
          .withVolumeBindingMode("WaitForFirstConsumer").withReclaimPolicy("Delete")
          .withAllowedTopologies(new TopologySelectorTermBuilder().withMatchLabelExpressions(
              new TopologySelectorLabelRequirementBuilder().withKey(ZONE_KEY).withValues(nowhere).build()).build())
          .build());
      cluster.createPvc("data", sc, "1Gi", "ReadWriteOnce");
      cluster.createPod("app", "data", "sleep 86400", null);
    });
    String reason = steps.step("pod unschedulable: the scheduler says why", () -> {
      Eventually.await("a FailedScheduling event of pod app", Duration.ofMinutes(2),
          () -> cluster.eventsOf("Pod", "app").stream().anyMatch(e -> "FailedScheduling".equals(e.getReason())));
      return cluster.eventsOf("Pod", "app").stream().filter(e -> "FailedScheduling".equals(e.getReason()))
          .map(Event::getMessage).findFirst().orElseThrow();
    });
    // The scheduler's words name no class or zone (volume binding finds no node for the claim): diagnose does, below.
    assertThat(reason).as("the scheduler's reason").contains("didn't find available persistent volumes to bind");
    steps.step("claim still Pending after the scheduler's retries (10 s)", () -> {
      Eventually.sleep(Duration.ofSeconds(10));
      assertThat(cluster.pvc("data").getStatus().getPhase()).isEqualTo("Pending");
      assertThat(cluster.client.pods().inNamespace(cluster.namespace).withName("app").get().getSpec().getNodeName())
          .isNull();
    });
    String text = steps.step("diagnose pvc names the reason", () -> {
      String out = diagnose("pvc", cluster.namespace + "/data");
      System.out.println("[diagnose pvc " + cluster.namespace + "/data]\n" + out);
      return out;
    });
    assertThat(text).as("diagnose's report").contains("allows only the topology topology.kubernetes.io/zone in ["
        + nowhere + "]");
    steps.summary();
  }

  private String diagnose(String kind, String ref) {
    List<String> args = new ArrayList<>(List.of(kind, ref));
    if (cluster.local()) {
      args.addAll(List.of("--kubeconfig", cluster.localCluster().kubeconfig().toString()));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DiagnoseCommand.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(out, true, StandardCharsets.UTF_8));
    return out.toString(StandardCharsets.UTF_8);
  }

  private void awaitAllReady(int replicas, Set<String> notUids) {
    Eventually.await(replicas + " ready pods of the StatefulSet", ClusterFixture.POD_READY, () -> {
      List<Pod> ready = pods().stream().filter(p -> !notUids.contains(p.getMetadata().getUid()))
          .filter(Readiness::isPodReady).toList();
      return ready.size() == replicas;
    });
  }

  private List<Pod> pods() {
    return cluster.client.pods().inNamespace(cluster.namespace).withLabel("app", "sts").list().getItems();
  }
}
