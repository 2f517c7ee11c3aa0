package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code blockAttachUntilInitialized: "true"} end to end (issue 27): a PVC restored from a snapshot with such a class
 * gets a VolumeAttachment that stays un-attached, its attach error the driver's progress message, while EC2 reports
 * the volume initializing (the local cluster's emulated EC2 initializes restored volumes for 45 s); then it attaches,
 * and the pod runs and reads the snapshot's data.
 */
class VolumeInitializationTest extends ClusterCase {

  @Override
  void assumptions() {
    assumeTrue(ClusterFixture.target() instanceof ClusterTarget.Local,
        "needs restored volumes that initialize for longer than the attacher's first try (the local cluster's EC2)");
  }

  @Test
  void attachWaitsForTheRestoredVolumeToInitializeThenThePodReadsTheSnapshot() {
    assumeTrue(cluster.hasSnapshotApi(), "the cluster has no snapshot CRDs");
    Steps steps = new Steps("init-gate");
    String token = ClusterFixture.token();
    steps.step("source volume written and synced", () -> {
      cluster.createPvc("source", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
      cluster.startSleeper("writer", "source");
      cluster.exec("writer", "echo " + token + " > " + ClusterFixture.MOUNT + "/file && sync");
    });
    var snapshots = cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT).inNamespace(cluster.namespace);
    steps.step("VolumeSnapshot readyToUse", () -> {
      cluster.createVolumeSnapshot("snap", "source");
      Eventually.await("VolumeSnapshot snap readyToUse", Duration.ofMinutes(5), () -> Boolean.TRUE.equals(
          status(snapshots.withName("snap").get()).get("readyToUse")));
    });
    String gated = cluster.storageClass("gated", Map.of("type", "gp3", "encrypted", "true",
        "blockAttachUntilInitialized", "true"), "WaitForFirstConsumer");
    String pv = steps.step("restored PVC bound (class with blockAttachUntilInitialized)", () -> {
      cluster.createPvc(new PersistentVolumeClaimBuilder().withNewMetadata().withName("restored").endMetadata()
          .withNewSpec().withStorageClassName(gated).withAccessModes("ReadWriteOnce")
          .withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources()
          .withNewDataSource().withApiGroup("snapshot.storage.k8s.io").withKind("VolumeSnapshot").withName("snap")
          .endDataSource().endSpec().build());
      cluster.createPod("reader", "restored", "sleep 86400", null);
      return cluster.awaitBound("restored").getMetadata().getName();
    });
    String message = steps.step("VolumeAttachment not attached, the driver's progress as its error", () -> {
      Eventually.await("VolumeAttachment of " + pv + " with an attach error naming the initialization",
          Duration.ofMinutes(2), () -> attachError(pv).filter(m -> m.contains("still initializing")).isPresent());
      VolumeAttachment va = attachment(pv).orElseThrow();
      assertThat(va.getStatus().getAttached()).as("attached while initializing").isNotEqualTo(Boolean.TRUE);
      return attachError(pv).orElseThrow();
    });
    assertThat(message).contains("blockAttachUntilInitialized").containsPattern("initializ");
    steps.step("attached once initialized; the pod reads the snapshot's data", () -> {
      Eventually.await("VolumeAttachment of " + pv + " attached", Duration.ofMinutes(5),
          () -> attachment(pv).map(va -> va.getStatus() != null && Boolean.TRUE.equals(va.getStatus().getAttached()))
              .orElse(false));
      cluster.awaitReady("reader");
      assertThat(cluster.exec("reader", "cat " + ClusterFixture.MOUNT + "/file")).isEqualTo(token);
    });
    steps.summary();
  }

  private Optional<VolumeAttachment> attachment(String pv) {
    return cluster.client.storage().v1().volumeAttachments().list().getItems().stream()
        .filter(va -> pv.equals(va.getSpec().getSource().getPersistentVolumeName())).findFirst();
  }

  private Optional<String> attachError(String pv) {
    return attachment(pv).map(VolumeAttachment::getStatus).map(s -> s.getAttachError())
        .map(e -> e.getMessage());
  }

  private static Map<?, ?> status(GenericKubernetesResource r) {
    return r != null && r.getAdditionalProperties().get("status") instanceof Map<?, ?> s ? s : Map.of();
  }
}
