package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * EFS volumes shared ReadWriteMany: an access-point volume (the chart's efs-sc class) written and read by two pods
 * (on two nodes where the cluster has two), a directory volume (provisioningMode efs-dir), and a static PV naming the
 * file system.
 */
class EfsSharedVolumeTest extends ClusterCase {

  private String fileSystemId;

  @Override
  void assumptions() {
    fileSystemId = ClusterFixture.target().fileSystemId().orElse(null);
    assumeTrue(fileSystemId != null, "E2E_EFS_FILESYSTEM_ID is not set: the EFS cases need a file system with mount"
        + " targets in the nodes' subnets (the chart's efs-sc class uses it)");
  }

  @Test
  void accessPointVolumeIsSharedByTwoPods() {
    Steps steps = new Steps("efs-ap rwx");
    List<Node> nodes = cluster.schedulableNodes();
    String first = nodes.get(0).getMetadata().getName();
    String second = nodes.get(nodes.size() > 1 ? 1 : 0).getMetadata().getName();
    String handle = steps.step("ReadWriteMany PVC of efs-sc bound (CreateVolume: an access point)", () -> {
      cluster.createPvc("shared", ClusterFixture.EFS_CLASS, "5Gi", "ReadWriteMany");
      return cluster.awaitBound("shared").getSpec().getCsi().getVolumeHandle();
    });
    assertThat(handle).contains(fileSystemId + "::fsap-");
    shareBetweenTwoPods(steps, "shared", first, second);
    steps.summary();
  }

  @Test
  void directoryVolumeOfAnEfsDirClass() {
    Steps steps = new Steps("efs-dir");
    String sc = cluster.storageClass("efs-dir", Map.of("provisioningMode", "efs-dir", "fileSystemId", fileSystemId,
        "directoryPerms", "700", "basePath", "/e2e"), "Immediate");
    String handle = steps.step("PVC of an efs-dir class bound (a directory, no access point)", () -> {
      cluster.createPvc("dir", sc, "1Gi", "ReadWriteMany");
      return cluster.awaitBound("dir").getSpec().getCsi().getVolumeHandle();
    });
    assertThat(handle).contains(fileSystemId + ":/e2e/").doesNotContain("fsap-");
    String node = cluster.schedulableNodes().getFirst().getMetadata().getName();
    shareBetweenTwoPods(steps, "dir", node, node);
    steps.summary();
  }

  @Test
  void staticVolumeNamesTheFileSystem() {
    Steps steps = new Steps("efs static");
    String pvName = cluster.namespace + "-static";
    steps.step("static PV (volumeHandle " + fileSystemId + ") and a PVC bound to it", () -> {
      PersistentVolume pv = cluster.createClusterScoped(new PersistentVolumeBuilder().withNewMetadata()
          .withName(pvName).endMetadata().withNewSpec().withCapacity(Map.of("storage", new Quantity("5Gi")))
          .withAccessModes("ReadWriteMany").withPersistentVolumeReclaimPolicy("Retain").withStorageClassName("")
          .withNewCsi().withDriver("efs.csi.aws.com").withVolumeHandle(fileSystemId).endCsi().endSpec().build());
      cluster.teardown.record(pv);
      cluster.createPvc(new PersistentVolumeClaimBuilder().withNewMetadata().withName("static").endMetadata()
          .withNewSpec().withStorageClassName("").withVolumeName(pvName).withAccessModes("ReadWriteMany")
          .withNewResources().addToRequests("storage", new Quantity("5Gi")).endResources().endSpec().build());
      cluster.awaitBound("static");
    });
    String node = cluster.schedulableNodes().getFirst().getMetadata().getName();
    shareBetweenTwoPods(steps, "static", node, node);
    steps.summary();
  }

  private void shareBetweenTwoPods(Steps steps, String pvc, String firstNode, String secondNode) {
    steps.step("two pods mount it" + (firstNode.equals(secondNode) ? " (one node)" : " on two nodes"), () -> {
      cluster.startPod("one", pvc, "sleep 86400", firstNode);
      cluster.startPod("two", pvc, "sleep 86400", secondNode);
    });
    steps.step("each sees the other's writes", () -> {
      String fromOne = ClusterFixture.token();
      cluster.exec("one", "echo " + fromOne + " > " + ClusterFixture.MOUNT + "/from-one");
      assertThat(cluster.exec("two", "cat " + ClusterFixture.MOUNT + "/from-one")).isEqualTo(fromOne);
      String fromTwo = ClusterFixture.token();
      cluster.exec("two", "echo " + fromTwo + " > " + ClusterFixture.MOUNT + "/from-two");
      assertThat(cluster.exec("one", "cat " + ClusterFixture.MOUNT + "/from-two")).isEqualTo(fromTwo);
    });
  }
}
