package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.Test;

/** A raw block PVC (volumeMode Block) published into a pod as a device: written and read back through it. */
class BlockVolumeTest extends ClusterCase {

  private static final String DEVICE = "/dev/xvda";

  @Test
  void blockVolumeIsADeviceInThePod() {
    Steps steps = new Steps("block");
    steps.step("block PVC and a pod with it as " + DEVICE, () -> {
      cluster.createPvc(new PersistentVolumeClaimBuilder().withNewMetadata().withName("raw").endMetadata()
          .withNewSpec().withStorageClassName(ClusterFixture.GP3).withAccessModes("ReadWriteOnce")
          .withVolumeMode("Block").withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources()
          .endSpec().build());
      var spec = ClusterFixture.podSpec("raw", "sleep 86400", null);
      var container = spec.getContainers().getFirst();
      container.setVolumeMounts(java.util.List.of());
      container.setVolumeDevices(java.util.List.of(new io.fabric8.kubernetes.api.model.VolumeDeviceBuilder()
          .withName("data").withDevicePath(DEVICE).build()));
      cluster.client.pods().inNamespace(cluster.namespace).resource(new PodBuilder().withNewMetadata()
          .withName("app").endMetadata().withSpec(spec).build()).create();
      cluster.awaitReady("app");
    });
    steps.step("the device is a block device of 1 GiB", () -> {
      assertThat(cluster.exec("app", "[ -b " + DEVICE + " ] && echo block")).isEqualTo("block");
      assertThat(cluster.exec("app", "blockdev --getsize64 " + DEVICE + " 2>/dev/null || "
          + "echo $(( $(cat /sys/class/block/$(basename $(readlink -f " + DEVICE + "))/size) * 512 ))"))
          .isEqualTo(Long.toString(1L << 30));
    });
    String token = ClusterFixture.token();
    steps.step("written and read back through the device", () -> {
      cluster.exec("app", "echo " + token + " | dd of=" + DEVICE + " bs=512 seek=8 conv=fsync 2>/dev/null");
      assertThat(cluster.exec("app", "dd if=" + DEVICE + " bs=512 skip=8 count=1 2>/dev/null | head -1"))
          .isEqualTo(token);
    });
    steps.summary();
  }
}
