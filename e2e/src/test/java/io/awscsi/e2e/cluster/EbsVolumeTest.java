package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** gp3 volumes through the chart's default StorageClass: data outlives its pod, and a mounted volume grows online. */
@Tag("cluster")
@ExtendWith(ClusterAvailable.class)
class EbsVolumeTest {

  private ClusterFixture cluster;

  @BeforeEach
  void open() {
    cluster = ClusterFixture.open();
  }

  @AfterEach
  void close() {
    cluster.close();
  }

  @Test
  void dataWrittenByOnePodIsReadByTheNext() {
    cluster.createPvc("data", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
    cluster.startSleeper("writer", "data");
    String token = ClusterFixture.token();
    cluster.exec("writer", "echo " + token + " > " + ClusterFixture.MOUNT + "/file && sync");
    cluster.deletePod("writer");

    cluster.startSleeper("reader", "data");
    assertThat(cluster.exec("reader", "cat " + ClusterFixture.MOUNT + "/file")).isEqualTo(token);
  }

  @Test
  void mountedVolumeGrowsOnline() {
    cluster.createPvc("data", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
    cluster.startSleeper("app", "data");
    long before = sizeKib();
    assertThat(before).isLessThan(1024 * 1024);

    cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).withName("data")
        .edit(pvc -> {
          pvc.getSpec().getResources().getRequests().put("storage", new Quantity("2Gi"));
          return pvc;
        });

    // Controller expansion (ModifyVolume) then the kubelet's NodeExpandVolume while the pod keeps running.
    Eventually.await("df in the pod shows the grown file system", Duration.ofMinutes(10),
        () -> sizeKib() > 3 * 512 * 1024);
    Eventually.await("PVC status capacity is 2Gi", Duration.ofMinutes(2), () -> new Quantity("2Gi").equals(
        cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).withName("data").get()
            .getStatus().getCapacity().get("storage")));
    assertThat(cluster.exec("app", "echo still-writable > " + ClusterFixture.MOUNT + "/after && cat "
        + ClusterFixture.MOUNT + "/after")).isEqualTo("still-writable");
  }

  /** The file system size in KiB as {@code df} inside the pod reports it. */
  private long sizeKib() {
    String df = cluster.exec("app", "df -k " + ClusterFixture.MOUNT + " | tail -1");
    return Long.parseLong(df.trim().split("\\s+")[1]);
  }
}
