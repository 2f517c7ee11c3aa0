package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * A VolumeSnapshot of an in-use gp3 volume (snapshot-controller and csi-snapshotter), a PVC restored from it with the
 * same data, then the delete chain: VolumeSnapshot, VolumeSnapshotContent, the EC2 snapshot.
 */
class SnapshotRestoreTest extends ClusterCase {

  @Test
  void restoredVolumeHoldsTheSnapshottedDataAndTheSnapshotIsDeletedWithIt() {
    assumeTrue(cluster.hasSnapshotApi(),
        "the cluster has no snapshot CRDs (install external-snapshotter's CRDs and controller to run this case)");
    Steps steps = new Steps("snapshot");
    String token = ClusterFixture.token();
    steps.step("source volume written (and synced: a snapshot is crash-consistent)", () -> {
      cluster.createPvc("source", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
      cluster.startSleeper("writer", "source");
      cluster.exec("writer", "echo " + token + " > " + ClusterFixture.MOUNT + "/file && sync");
    });
    var snapshots = cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT).inNamespace(cluster.namespace);
    String snapshotId = steps.step("VolumeSnapshot readyToUse", () -> {
      cluster.createVolumeSnapshot("snap", "source");
      Eventually.await("VolumeSnapshot snap readyToUse", Duration.ofMinutes(15), () -> Boolean.TRUE.equals(
          status(snapshots.withName("snap").get()).get("readyToUse")));
      String content = (String) status(snapshots.withName("snap").get()).get("boundVolumeSnapshotContentName");
      return (String) status(cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT_CONTENT)
          .withName(content).get()).get("snapshotHandle");
    });
    assertThat(snapshotId).startsWith("snap-");
    steps.step("PVC restored from the snapshot holds the data", () -> {
      cluster.createPvc(new PersistentVolumeClaimBuilder().withNewMetadata().withName("restored").endMetadata()
          .withNewSpec().withStorageClassName(ClusterFixture.GP3).withAccessModes("ReadWriteOnce")
          .withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources()
          .withNewDataSource().withApiGroup("snapshot.storage.k8s.io").withKind("VolumeSnapshot").withName("snap")
          .endDataSource().endSpec().build());
      cluster.startSleeper("reader", "restored");
      assertThat(cluster.exec("reader", "cat " + ClusterFixture.MOUNT + "/file")).isEqualTo(token);
    });
    steps.step("delete chain: VolumeSnapshot, its content, the EC2 snapshot", () -> {
      String content = (String) status(snapshots.withName("snap").get()).get("boundVolumeSnapshotContentName");
      snapshots.withName("snap").delete();
      Eventually.await("VolumeSnapshot and VolumeSnapshotContent gone", Duration.ofMinutes(3),
          () -> snapshots.withName("snap").get() == null && cluster.client.genericKubernetesResources(
              Teardown.VOLUME_SNAPSHOT_CONTENT).withName(content).get() == null);
      try (Ec2Client ec2 = ClusterFixture.target().ec2()) {
        Eventually.await("EC2 snapshot " + snapshotId + " deleted", Duration.ofMinutes(3),
            () -> Teardown.snapshotGone(ec2, snapshotId));
      }
    });
    steps.summary();
  }

  private static Map<?, ?> status(GenericKubernetesResource r) {
    return r != null && r.getAdditionalProperties().get("status") instanceof Map<?, ?> s ? s : Map.of();
  }
}
