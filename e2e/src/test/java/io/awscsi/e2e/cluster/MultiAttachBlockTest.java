package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeDeviceBuilder;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.ec2.model.Volume;
import software.amazon.awssdk.services.ec2.model.VolumeAttachmentState;

/**
 * io2 Multi-Attach (issue 28): a ReadWriteMany raw block claim of an io2 class (the driver, like upstream, takes
 * multi-attach from the access mode MULTI_NODE_MULTI_WRITER with block access; there is no class parameter), used by
 * pods on the two nodes of one zone at once: two VolumeAttachments, EC2 lists two attachments of the one volume, a
 * block written with O_DIRECT on one node is read back with O_DIRECT on the other, both ways. Then both pods go and
 * the volume is detached from both instances. Needs the local cluster with several nodes (KUBE_LOCAL_NODES=3: nodes 1
 * and 2 share us-east-1a); skipped elsewhere.
 */
class MultiAttachBlockTest extends ClusterCase {

  private static final String DEVICE = "/dev/xvda";
  /** O_DIRECT wants whole, aligned blocks: 4 KiB blocks at 4 KiB offsets. */
  private static final int BLOCK = 4096;

  @Override
  void assumptions() {
    assumeTrue(ClusterFixture.target() instanceof ClusterTarget.Local local && local.cluster().nodeCount() >= 2,
        "needs the local cluster with several nodes (KUBE_LOCAL_NODES=3 make cluster-up)");
  }

  @Test
  void io2BlockVolumeIsAttachedToTwoNodesAndEachReadsTheOthersWrites() {
    Steps steps = new Steps("io2 multi-attach");
    List<String> names = List.of(cluster.localCluster().get("KUBE_LOCAL_NODE_NAMES").split(","));
    String first = names.get(0);
    String second = names.get(1);
    assertThat(ClusterFixture.zoneOf(cluster.client.nodes().withName(second).get()))
        .as("nodes 1 and 2 share a zone").isEqualTo(ClusterFixture.zoneOf(cluster.client.nodes().withName(first).get()));

    String io2 = cluster.storageClass("io2", Map.of("type", "io2", "iops", "1000"), "WaitForFirstConsumer");
    steps.step("io2 class, ReadWriteMany Block claim of 4 GiB", () -> {
      cluster.createPvc(new PersistentVolumeClaimBuilder().withNewMetadata().withName("shared").endMetadata()
          .withNewSpec().withStorageClassName(io2).withAccessModes("ReadWriteMany").withVolumeMode("Block")
          .withNewResources().addToRequests("storage", new Quantity("4Gi")).endResources().endSpec().build());
    });
    steps.step("pod a on " + first + " with the device Ready", () -> {
      startBlockPod("a", first);
      return cluster.nodeOf("a");
    });
    steps.step("pod b on " + second + " with the same device Ready", () -> {
      startBlockPod("b", second);
      return cluster.nodeOf("b");
    });
    assertThat(cluster.nodeOf("a")).isEqualTo(first);
    assertThat(cluster.nodeOf("b")).isEqualTo(second);
    String pv = cluster.pvc("shared").getSpec().getVolumeName();
    String volumeId = cluster.client.persistentVolumes().withName(pv).get().getSpec().getCsi().getVolumeHandle();

    steps.step("two VolumeAttachments of " + pv + ", both attached", () -> {
      VolumeAttachment onFirst = cluster.awaitAttached(pv, first);
      VolumeAttachment onSecond = cluster.awaitAttached(pv, second);
      return onFirst.getMetadata().getName() + ", " + onSecond.getMetadata().getName();
    });
    steps.step("EC2: " + volumeId + " multi-attach enabled, attached to both instances", () -> {
      Volume volume = volume(volumeId);
      assertThat(volume.multiAttachEnabled()).as("MultiAttachEnabled").isTrue();
      assertThat(volume.volumeTypeAsString()).isEqualTo("io2");
      assertThat(volume.attachments()).as("attachments of " + volumeId).hasSize(2)
          .allMatch(a -> a.state() == VolumeAttachmentState.ATTACHED);
      assertThat(volume.attachments().stream().map(a -> a.instanceId()).distinct()).hasSize(2);
      return volume.attachments().stream().map(a -> a.instanceId() + " " + a.device()).toList().toString();
    });

    String fromA = ClusterFixture.token();
    String fromB = ClusterFixture.token();
    steps.step("a writes a block at 1 MiB with O_DIRECT, b reads it with O_DIRECT", () -> {
      writeBlock("a", fromA, 256);
      assertThat(readBlock("b", 256)).isEqualTo(fromA);
    });
    steps.step("b writes a block at 2 MiB with O_DIRECT, a reads it with O_DIRECT", () -> {
      writeBlock("b", fromB, 512);
      assertThat(readBlock("a", 512)).isEqualTo(fromB);
      assertThat(readBlock("a", 256)).as("a's own block kept").isEqualTo(fromA);
    });

    steps.step("pod a gone: detached from " + first + " only, b still reads", () -> {
      cluster.deletePod("a");
      Eventually.await("VolumeAttachment of " + pv + " on " + first + " gone", Duration.ofMinutes(3),
          () -> cluster.attachment(pv, first).isEmpty());
      assertThat(cluster.attachment(pv, second)).as("still attached to " + second).isPresent();
      Eventually.await("EC2: " + volumeId + " attached to one instance", Duration.ofMinutes(1),
          () -> volume(volumeId).attachments().size() == 1);
      assertThat(readBlock("b", 256)).isEqualTo(fromA);
    });
    steps.step("pod b gone: detached from " + second + ", EC2 volume available", () -> {
      cluster.deletePod("b");
      Eventually.await("VolumeAttachment of " + pv + " on " + second + " gone", Duration.ofMinutes(3),
          () -> cluster.attachment(pv, second).isEmpty());
      Eventually.await(volumeId + " available with no attachment", Duration.ofMinutes(2),
          () -> volume(volumeId).attachments().isEmpty() && "available".equals(volume(volumeId).stateAsString()));
    });
    steps.summary();
  }

  private void startBlockPod(String name, String node) {
    var spec = ClusterFixture.podSpec("shared", "sleep 86400", node);
    var container = spec.getContainers().getFirst();
    container.setVolumeMounts(List.of());
    container.setVolumeDevices(List.of(new VolumeDeviceBuilder().withName("data").withDevicePath(DEVICE).build()));
    cluster.client.pods().inNamespace(cluster.namespace).resource(new PodBuilder().withNewMetadata().withName(name)
        .endMetadata().withSpec(spec).build()).create();
    cluster.awaitReady(name);
  }

  /** One block of {@code token} padded with zeros, written at block {@code index} bypassing the page cache. */
  private void writeBlock(String pod, String token, int index) {
    cluster.exec(pod, "printf '%s' " + token + " | dd of=/tmp/block bs=" + BLOCK + " count=1 conv=sync 2>/dev/null"
        + " && dd if=/tmp/block of=" + DEVICE + " bs=" + BLOCK + " seek=" + index + " count=1 oflag=direct"
        + " conv=notrunc,fsync 2>/dev/null");
  }

  private String readBlock(String pod, int index) {
    return cluster.exec(pod, "dd if=" + DEVICE + " bs=" + BLOCK + " skip=" + index + " count=1 iflag=direct"
        + " 2>/dev/null | tr -d '\\000'");
  }

  private Volume volume(String volumeId) {
    try (var ec2 = cluster.localCluster().ec2()) {
      return ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst();
    }
  }
}
