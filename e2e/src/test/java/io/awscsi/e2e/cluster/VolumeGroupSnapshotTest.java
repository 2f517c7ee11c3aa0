package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * A VolumeGroupSnapshot of two gp3 volumes of one pod that a writer fills with one numbered sequence, interleaved
 * (each number to the first volume and synced, then to the second and synced): snapshot-controller and csi-snapshotter with the
 * CSIVolumeGroupSnapshot gate, the driver's GroupController (EC2 CreateSnapshots, crash-consistent across the
 * members). Both members restored into a new pod must hold the same prefix of the sequence, the second at most one
 * number behind the first: two independent snapshots taken one after the other would let the second volume run
 * ahead or fall behind by however many numbers were written between them. Then the delete chain: the group, its
 * member VolumeSnapshots and contents, every member's EC2 snapshot.
 */
class VolumeGroupSnapshotTest extends ClusterCase {

  static final ResourceDefinitionContext GROUP_SNAPSHOT = new ResourceDefinitionContext.Builder()
      .withGroup("groupsnapshot.storage.k8s.io").withVersion("v1").withKind("VolumeGroupSnapshot")
      .withPlural("volumegroupsnapshots").withNamespaced(true).build();
  static final ResourceDefinitionContext GROUP_SNAPSHOT_CONTENT = new ResourceDefinitionContext.Builder()
      .withGroup("groupsnapshot.storage.k8s.io").withVersion("v1").withKind("VolumeGroupSnapshotContent")
      .withPlural("volumegroupsnapshotcontents").withNamespaced(false).build();
  static final ResourceDefinitionContext GROUP_SNAPSHOT_CLASS = new ResourceDefinitionContext.Builder()
      .withGroup("groupsnapshot.storage.k8s.io").withVersion("v1").withKind("VolumeGroupSnapshotClass")
      .withPlural("volumegroupsnapshotclasses").withNamespaced(false).build();

  /** The members, in the order the writer writes each number: the first is never behind the second. */
  private static final List<String> MEMBERS = List.of("first", "second");
  private static final String LABEL = "aws-csi-e2e/group";
  private static final Duration READY = Duration.ofMinutes(15);
  private static final Duration GONE = Duration.ofMinutes(3);

  @Test
  void restoredMembersHoldOneInstantOfTheInterleavedSequenceAndTheGroupIsDeletedWithItsSnapshots() {
    assumeTrue(cluster.client.apiextensions().v1().customResourceDefinitions()
        .withName("volumegroupsnapshots.groupsnapshot.storage.k8s.io").get() != null,
        "the cluster has no group snapshot CRDs (install external-snapshotter's groupsnapshot.storage.k8s.io CRDs "
            + "and run snapshot-controller and csi-snapshotter with --feature-gates=CSIVolumeGroupSnapshot=true)");
    Steps steps = new Steps("group snapshot");
    String group = cluster.namespace.substring(Math.max(0, cluster.namespace.length() - 20));
    var groups = cluster.client.genericKubernetesResources(GROUP_SNAPSHOT).inNamespace(cluster.namespace);
    var snapshots = cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT).inNamespace(cluster.namespace);
    var contents = cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT_CONTENT);
    String className = cluster.namespace + "-vgsc";
    var classes = cluster.client.genericKubernetesResources(GROUP_SNAPSHOT_CLASS);
    try {
      int before = steps.step("writer pod with two labelled gp3 PVCs writes the interleaved sequence", () -> {
        for (String m : MEMBERS) {
          cluster.createPvc(new PersistentVolumeClaimBuilder().withNewMetadata().withName(m)
              .addToLabels(LABEL, group).endMetadata()
              .withNewSpec().withStorageClassName(ClusterFixture.GP3).withAccessModes("ReadWriteOnce")
              .withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources().endSpec().build());
        }
        // One number to the first volume, synced, then to the second, synced: what a crash can leave of the pair
        // is then always "the second at most one behind", and a crash-consistent group snapshot must not leave more.
        startPod("writer", MEMBERS.getFirst(), MEMBERS.getLast(), "i=0; while true; do i=$((i+1)); "
            + "echo $i >> /" + MEMBERS.getFirst() + "/seq; sync; echo $i >> /" + MEMBERS.getLast() + "/seq; sync; "
            + "sleep 0.05 2>/dev/null || sleep 1; done");
        Eventually.await("the writer wrote 20 numbers", Duration.ofMinutes(1),
            () -> lines("writer", MEMBERS.getFirst()) >= 20);
        return lines("writer", MEMBERS.getFirst());
      });
      steps.step("VolumeGroupSnapshotClass (ebs.csi.aws.com, deletionPolicy Delete)", () -> {
        classes.resource(new GenericKubernetesResourceBuilder().withApiVersion("groupsnapshot.storage.k8s.io/v1")
            .withKind("VolumeGroupSnapshotClass").withNewMetadata().withName(className).endMetadata()
            .addToAdditionalProperties("driver", "ebs.csi.aws.com")
            .addToAdditionalProperties("deletionPolicy", "Delete").build()).create();
      });
      Map<String, String> members = steps.step("VolumeGroupSnapshot of both PVCs (by label) readyToUse", () -> {
        groups.resource(new GenericKubernetesResourceBuilder().withApiVersion("groupsnapshot.storage.k8s.io/v1")
            .withKind("VolumeGroupSnapshot").withNewMetadata().withName("pair").endMetadata()
            .addToAdditionalProperties("spec", Map.of("volumeGroupSnapshotClassName", className,
                "source", Map.of("selector", Map.of("matchLabels", Map.of(LABEL, group))))).build()).create();
        Eventually.await("VolumeGroupSnapshot pair readyToUse", READY,
            () -> Boolean.TRUE.equals(status(groups.withName("pair").get()).get("readyToUse")));
        return membersByPvc(groups.withName("pair").get());
      });
      assertThat(members).as("member VolumeSnapshot of each PVC").containsOnlyKeys(MEMBERS);
      // snapshot-controller v8.7.0 stamps each member's status from the group content's volumeSnapshotInfoList, which
      // csi-snapshotter fills from the first CreateVolumeGroupSnapshot answer only (members still pending then);
      // csi-snapshotter's GetSnapshotStatus of the member sets it right on its next resync of the content.
      steps.step("member VolumeSnapshots readyToUse", () -> Eventually.await("member VolumeSnapshots "
          + members.values() + " readyToUse", READY, () -> members.values().stream()
          .allMatch(vs -> Boolean.TRUE.equals(status(snapshots.withName(vs).get()).get("readyToUse")))));
      int after = lines("writer", MEMBERS.getFirst());
      Map<String, String> handles = new LinkedHashMap<>();
      members.forEach((pvc, vs) -> handles.put(pvc, snapshotHandle(snapshots.withName(vs).get())));
      assertThat(handles.values()).allSatisfy(h -> assertThat(h).startsWith("snap-")).doesNotHaveDuplicates();
      steps.step("both members restored into a new pod", () -> {
        for (String m : MEMBERS) {
          cluster.createPvc(new PersistentVolumeClaimBuilder().withNewMetadata().withName("restored-" + m)
              .endMetadata().withNewSpec().withStorageClassName(ClusterFixture.GP3).withAccessModes("ReadWriteOnce")
              .withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources()
              .withNewDataSource().withApiGroup("snapshot.storage.k8s.io").withKind("VolumeSnapshot")
              .withName(members.get(m)).endDataSource().endSpec().build());
        }
        startPod("reader", "restored-" + MEMBERS.getFirst(), "restored-" + MEMBERS.getLast(), "sleep 86400");
      });
      String pair = steps.step("the pair is one instant: same prefix, the second at most one number behind", () -> {
        List<String> first = List.of(cluster.exec("reader", "cat /" + MEMBERS.getFirst() + "/seq").split("\n"));
        List<String> second = List.of(cluster.exec("reader", "cat /" + MEMBERS.getLast() + "/seq").split("\n"));
        // Each file is exactly 1..n: nothing torn, nothing missing in the middle.
        assertThat(first).as("first volume's sequence").isEqualTo(sequence(first.size()));
        assertThat(second).as("second volume's sequence").isEqualTo(sequence(second.size()));
        assertThat(first.size() - second.size()).as("numbers on the first volume not yet on the second "
            + "(first %d, second %d)", first.size(), second.size()).isBetween(0, 1);
        // Taken while the writer ran: after the count read before the request, before the one read once ready.
        assertThat(first.size()).as("numbers in the group snapshot").isBetween(before, after);
        return "first " + first.size() + ", second " + second.size() + " (written: " + before + " before the "
            + "request, " + after + " once ready)";
      });
      assertThat(pair).isNotEmpty();
      steps.step("delete chain: the group, its member VolumeSnapshots and contents, every EC2 snapshot", () -> {
        String groupContent = (String) status(groups.withName("pair").get()).get("boundVolumeGroupSnapshotContentName");
        List<String> memberContents = members.values().stream().map(vs -> (String) status(snapshots.withName(vs)
            .get()).get("boundVolumeSnapshotContentName")).toList();
        groups.withName("pair").delete();
        Eventually.await("VolumeGroupSnapshot, its content, member VolumeSnapshots and contents gone", GONE,
            () -> groups.withName("pair").get() == null
                && cluster.client.genericKubernetesResources(GROUP_SNAPSHOT_CONTENT).withName(groupContent).get() == null
                && members.values().stream().allMatch(vs -> snapshots.withName(vs).get() == null)
                && memberContents.stream().allMatch(c -> contents.withName(c).get() == null));
        try (Ec2Client ec2 = ClusterFixture.target().ec2()) {
          Eventually.await("EC2 snapshots " + handles.values() + " deleted", GONE,
              () -> handles.values().stream().allMatch(id -> Teardown.snapshotGone(ec2, id)));
        }
      });
      steps.summary();
    } finally {
      classes.withName(className).delete();
    }
  }

  /** A busybox pod mounting each claim at /{@code <claim without restored->}, both on the pod's one node. */
  private void startPod(String name, String first, String second, String script) {
    PodBuilder pod = new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
        .withTerminationGracePeriodSeconds(5L).addNewContainer().withName("app")
        .withImage(ClusterFixture.target().busyboxImage()).withImagePullPolicy("IfNotPresent")
        .withCommand("sh", "-c", script)
        .addNewVolumeMount().withName("a").withMountPath("/" + MEMBERS.getFirst()).endVolumeMount()
        .addNewVolumeMount().withName("b").withMountPath("/" + MEMBERS.getLast()).endVolumeMount().endContainer()
        .addNewVolume().withName("a").withNewPersistentVolumeClaim().withClaimName(first).endPersistentVolumeClaim()
        .endVolume()
        .addNewVolume().withName("b").withNewPersistentVolumeClaim().withClaimName(second).endPersistentVolumeClaim()
        .endVolume().endSpec();
    cluster.client.pods().inNamespace(cluster.namespace).resource(pod.build()).create();
    cluster.awaitReady(name);
  }

  private int lines(String pod, String member) {
    return Integer.parseInt(cluster.exec(pod, "wc -l < /" + member + "/seq 2>/dev/null || echo 0").trim());
  }

  /**
   * The group's member VolumeSnapshot of each source PVC: the VolumeSnapshots snapshot-controller made for the group
   * (the case makes no other), matched through their EC2 snapshot id to the volume in the group content's
   * volumeSnapshotInfoList.
   */
  private Map<String, String> membersByPvc(GenericKubernetesResource group) {
    String groupContent = (String) status(group).get("boundVolumeGroupSnapshotContentName");
    Map<String, String> volumeOfSnapshot = new LinkedHashMap<>();
    if (status(cluster.client.genericKubernetesResources(GROUP_SNAPSHOT_CONTENT).withName(groupContent).get())
        .get("volumeSnapshotInfoList") instanceof List<?> infos) {
      for (Object o : infos) {
        if (o instanceof Map<?, ?> info) {
          volumeOfSnapshot.put((String) info.get("snapshotHandle"), (String) info.get("volumeHandle"));
        }
      }
    }
    Map<String, String> pvcOfVolume = new LinkedHashMap<>();
    for (String m : MEMBERS) {
      pvcOfVolume.put(cluster.client.persistentVolumes().withName(cluster.pvc(m).getSpec().getVolumeName()).get()
          .getSpec().getCsi().getVolumeHandle(), m);
    }
    Map<String, String> byPvc = new LinkedHashMap<>();
    for (GenericKubernetesResource vs : cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT)
        .inNamespace(cluster.namespace).list().getItems()) {
      String pvc = pvcOfVolume.get(volumeOfSnapshot.get(snapshotHandle(vs)));
      if (pvc != null) {
        byPvc.put(pvc, vs.getMetadata().getName());
      }
    }
    return byPvc;
  }

  private String snapshotHandle(GenericKubernetesResource vs) {
    Object content = status(vs).get("boundVolumeSnapshotContentName");
    if (!(content instanceof String name)) {
      return null;
    }
    return (String) status(cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT_CONTENT).withName(name)
        .get()).get("snapshotHandle");
  }

  private static List<String> sequence(int n) {
    return IntStream.rangeClosed(1, n).mapToObj(Integer::toString).toList();
  }

  private static Map<?, ?> status(GenericKubernetesResource r) {
    return r != null && r.getAdditionalProperties().get("status") instanceof Map<?, ?> s ? s : Map.of();
  }
}
