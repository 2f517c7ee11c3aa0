package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.ec2.model.Filter;

/**
 * The EBS release's life on the local cluster in pods mode: {@code helm upgrade} to a new image tag while a pod
 * writes to a volume once a second (the pod keeps running, no write is lost, the Leases move to the new controller
 * replicas), {@code helm rollback}, and {@code helm uninstall}, which removes every object of the release and leaves
 * a Retain volume's PV, its EC2 volume and its data, read back after the chart is installed again.
 */
class ChartUpgradeTest extends ClusterCase {

  private static final String WRITER = "i=0; while true; do echo $i >> " + ClusterFixture.MOUNT
      + "/log; sync; i=$((i+1)); sleep 1; done";
  private static final String RETAIN_CLASS = "gp3-retain";

  private ChartRelease release;

  @BeforeEach
  void podsModeRelease() {
    assumeTrue(ChartRelease.podsMode(cluster), "the local cluster runs the driver from the charts (make test-chart-pods)");
    release = ChartRelease.ebs(cluster.localCluster());
  }

  @Test
  void upgradeToANewImageTagThenRollbackWhileAPodWrites() {
    Steps steps = new Steps("helm upgrade and rollback under a writing pod");
    String image = cluster.localCluster().get("KUBE_LOCAL_DRIVER_IMAGE");
    String tag = image.substring(image.lastIndexOf(':') + 1);
    String newTag = tag + "-b";
    steps.step("writer pod appending a line a second", () -> {
      cluster.createPvc("data", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
      cluster.startPod("writer", "data", WRITER, null);
      Eventually.await("a few lines written", Duration.ofSeconds(30), () -> lines() >= 3);
    });
    Set<String> before = controllerPods();
    steps.step("helm upgrade to image tag " + newTag, () -> {
      release.tagImage(image, image.substring(0, image.lastIndexOf(':') + 1) + newTag);
      release.upgrade("--set", "image.tag=" + newTag);
      awaitRolledOut(newTag);
    });
    steps.step("the Leases moved to the new controller replicas", () -> awaitLeasesHeldBy(before, controllerPods()));
    long afterUpgrade = lines();
    steps.step("the writer keeps appending, was not restarted, lost no write", () -> {
      Eventually.await("5 more lines", Duration.ofSeconds(30), () -> lines() >= afterUpgrade + 5);
      assertThat(cluster.restarts("writer")).isZero();
      assertConsecutive();
    });
    Set<String> upgraded = controllerPods();
    steps.step("helm rollback to the first revision's tag " + tag, () -> {
      String history = release.helm("history", release.name(), "-n", ClusterFixture.DRIVER_NAMESPACE, "-o", "json");
      assertThat(history).contains("\"status\":\"deployed\"");
      release.helm("rollback", release.name(), "-n", ClusterFixture.DRIVER_NAMESPACE, "--wait", "--timeout", "5m");
      awaitRolledOut(tag);
    });
    steps.step("the Leases moved again", () -> awaitLeasesHeldBy(upgraded, controllerPods()));
    long afterRollback = lines();
    steps.step("the writer still appends, not restarted, no write lost", () -> {
      Eventually.await("5 more lines", Duration.ofSeconds(30), () -> lines() >= afterRollback + 5);
      assertThat(cluster.restarts("writer")).isZero();
      return assertConsecutive() + " lines";
    });
    steps.summary();
  }

  @Test
  void uninstallRemovesTheReleaseAndLeavesRetainedVolumesWithTheirData() {
    Steps steps = new Steps("helm uninstall keeps PVs and data");
    PersistentVolume retained = steps.step("a Retain volume written by a pod, the pod gone (volume detached)", () -> {
      cluster.createPvc("kept", RETAIN_CLASS, "1Gi", "ReadWriteOnce");
      cluster.startPod("writer", "kept", "echo kept-data > " + ClusterFixture.MOUNT + "/f && sync && sleep 86400",
          null);
      PersistentVolume pv = cluster.awaitBound("kept");
      cluster.deletePod("writer");
      Eventually.await("no VolumeAttachment of " + pv.getMetadata().getName(), Duration.ofMinutes(2),
          () -> cluster.client.storage().v1().volumeAttachments().list().getItems().stream()
              .noneMatch(va -> pv.getMetadata().getName().equals(va.getSpec().getSource().getPersistentVolumeName())));
      return pv;
    });
    String handle = retained.getSpec().getCsi().getVolumeHandle();
    List<HasMetadata> objects = release.manifest(cluster.client);
    steps.step("helm uninstall " + release.name(), () -> {
      release.helm("uninstall", release.name(), "-n", ClusterFixture.DRIVER_NAMESPACE, "--wait", "--timeout", "3m");
    });
    try {
      steps.step("every object of the release gone (" + objects.size() + ")", () -> {
        for (HasMetadata o : objects) {
          Eventually.await(o.getKind() + " " + o.getMetadata().getName() + " deleted", Duration.ofMinutes(2),
              () -> cluster.client.resource(o).get() == null);
        }
        Eventually.await("no pod of the release", Duration.ofMinutes(2), () -> release.pods(cluster.client).isEmpty());
      });
      steps.step("the PV and its EC2 volume are still there (the data: read back below)", () -> {
        PersistentVolume pv = cluster.client.persistentVolumes().withName(retained.getMetadata().getName()).get();
        assertThat(pv).as("PV %s", retained.getMetadata().getName()).isNotNull();
        assertThat(pv.getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Retain");
        assertThat(cluster.localCluster().ec2().describeVolumes(r -> r.filters(Filter.builder().name("volume-id")
            .values(handle).build())).volumes()).as("EC2 volume %s", handle).hasSize(1);
      });
    } finally {
      steps.step("helm install " + release.name() + " again", () -> {
        release.install();
        Eventually.await("every pod of " + release.name() + " Ready", ClusterFixture.POD_READY, () -> {
          List<Pod> pods = release.pods(cluster.client);
          return pods.size() == 3 && pods.stream().allMatch(Readiness::isPodReady);
        });
        for (var node : cluster.schedulableNodes()) {
          cluster.awaitDriverRegistered(node.getMetadata().getName(), "ebs.csi.aws.com");
        }
      });
    }
    steps.step("the data read back through a static PV of the same volume", () -> {
      cluster.client.persistentVolumes().withName(retained.getMetadata().getName()).delete();
      String name = "kept-" + cluster.namespace;
      cluster.createClusterScoped(new PersistentVolumeBuilder().withNewMetadata().withName(name)
          .addToAnnotations("pv.kubernetes.io/provisioned-by", "ebs.csi.aws.com").endMetadata()
          .withNewSpec().withCapacity(retained.getSpec().getCapacity()).withAccessModes("ReadWriteOnce")
          .withPersistentVolumeReclaimPolicy("Delete").withStorageClassName("")
          .withCsi(retained.getSpec().getCsi()).withNodeAffinity(retained.getSpec().getNodeAffinity())
          .withNewClaimRef().withNamespace(cluster.namespace).withName("again").endClaimRef().endSpec().build());
      cluster.createPvc(new PersistentVolumeClaimBuilder().withNewMetadata().withName("again").endMetadata()
          .withNewSpec().withStorageClassName("").withVolumeName(name).withAccessModes("ReadWriteOnce")
          .withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources().endSpec().build());
      cluster.startPod("reader", "again", "sleep 86400", null);
      assertThat(cluster.exec("reader", "cat " + ClusterFixture.MOUNT + "/f").trim()).isEqualTo("kept-data");
    });
    steps.summary();
  }

  private Set<String> controllerPods() {
    return cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE).withLabel("app", "ebs-csi-controller")
        .list().getItems().stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .map(p -> p.getMetadata().getName()).collect(Collectors.toSet());
  }

  /** Every pod of the release runs the driver image with {@code tag} and is Ready; no pod of another tag is left. */
  private void awaitRolledOut(String tag) {
    Eventually.await("every pod of " + release.name() + " on tag " + tag + " and Ready", ClusterFixture.POD_READY,
        () -> {
          List<Pod> pods = cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE)
              .withLabel("app.kubernetes.io/instance", release.name()).list().getItems();
          return pods.size() == 3 && pods.stream().allMatch(p -> Readiness.isPodReady(p)
              && p.getMetadata().getDeletionTimestamp() == null
              && p.getSpec().getContainers().getFirst().getImage().endsWith(":" + tag));
        });
  }

  private void awaitLeasesHeldBy(Set<String> old, Set<String> now) {
    assertThat(now).as("controller pods").hasSize(2).doesNotContainAnyElementsOf(old);
    for (String name : LeaderElectionTest.EBS_LEASES) {
      Eventually.await("lease " + name + " held by a new replica " + now, Duration.ofMinutes(2), () -> {
        Lease l = cluster.client.resources(Lease.class).inNamespace(ClusterFixture.DRIVER_NAMESPACE).withName(name)
            .get();
        return l != null && now.contains(l.getSpec().getHolderIdentity());
      });
    }
  }

  private long lines() {
    return Long.parseLong(cluster.exec("writer", "wc -l < " + ClusterFixture.MOUNT + "/log").trim());
  }

  private int assertConsecutive() {
    List<String> log = cluster.exec("writer", "cat " + ClusterFixture.MOUNT + "/log").lines().toList();
    assertThat(log).isNotEmpty();
    for (int i = 0; i < log.size(); i++) {
      assertThat(log.get(i)).as("line %d of the writer's log", i).isEqualTo(Integer.toString(i));
    }
    return log.size();
  }
}
