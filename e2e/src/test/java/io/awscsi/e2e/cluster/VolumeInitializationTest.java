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
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * {@code blockAttachUntilInitialized: "true"} end to end (issue 27): a PVC restored from a snapshot with such a class
 * gets a VolumeAttachment that stays un-attached while EC2 reports the volume initializing (the local cluster's
 * emulated EC2 initializes restored volumes for 45 s); then it attaches, and the pod runs and reads the snapshot's
 * data.
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
    String volumeId = cluster.client.persistentVolumes().withName(pv).get().getSpec().getCsi().getVolumeHandle();
    try (Ec2Client ec2 = ClusterFixture.target().ec2()) {
      // The attacher's call (its --timeout, 6 min in the chart) outlasts the driver's next look at EC2, so the
      // driver holds ControllerPublishVolume rather than failing it: the VolumeAttachment stays un-attached, without
      // an error, while EC2 reports the volume initializing (a progress error shows only past the call's deadline).
      steps.step("VolumeAttachment not attached while EC2 reports " + volumeId + " initializing", () -> {
        Eventually.await("VolumeAttachment of " + pv + " exists, not attached, volume initializing",
            Duration.ofMinutes(2), () -> attachment(pv).isPresent() && initializing(ec2, volumeId)
                && !attached(pv));
      });
      steps.step("attached once initialized; the pod reads the snapshot's data", () -> {
        Eventually.await("VolumeAttachment of " + pv + " attached", Duration.ofMinutes(5), () -> attached(pv));
        assertThat(initializing(ec2, volumeId)).as("attached before EC2 reported the volume initialized").isFalse();
        cluster.awaitReady("reader");
        assertThat(cluster.exec("reader", "cat " + ClusterFixture.MOUNT + "/file")).isEqualTo(token);
      });
    }
    steps.summary();
  }

  private Optional<VolumeAttachment> attachment(String pv) {
    return cluster.client.storage().v1().volumeAttachments().list().getItems().stream()
        .filter(va -> pv.equals(va.getSpec().getSource().getPersistentVolumeName())).findFirst();
  }

  private boolean attached(String pv) {
    return attachment(pv).map(va -> va.getStatus() != null && Boolean.TRUE.equals(va.getStatus().getAttached()))
        .orElse(false);
  }

  /** EC2's DescribeVolumeStatus says {@code initialization-state: initializing}. */
  private static boolean initializing(Ec2Client ec2, String volumeId) {
    return ec2.describeVolumeStatus(r -> r.volumeIds(volumeId)).volumeStatuses().stream()
        .flatMap(v -> v.volumeStatus().details().stream())
        .anyMatch(d -> "initialization-state".equals(d.nameAsString()) && "initializing".equals(d.status()));
  }

  private static Map<?, ?> status(GenericKubernetesResource r) {
    return r != null && r.getAdditionalProperties().get("status") instanceof Map<?, ?> s ? s : Map.of();
  }
}
