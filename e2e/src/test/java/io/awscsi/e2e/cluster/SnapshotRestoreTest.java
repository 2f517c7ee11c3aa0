package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A VolumeSnapshot of a gp3 volume, and a new volume restored from it with the same data. */
@Tag("cluster")
@ExtendWith(ClusterAvailable.class)
class SnapshotRestoreTest {

  private static final ResourceDefinitionContext VOLUME_SNAPSHOT = new ResourceDefinitionContext.Builder()
      .withGroup("snapshot.storage.k8s.io").withVersion("v1").withKind("VolumeSnapshot")
      .withPlural("volumesnapshots").withNamespaced(true).build();

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
  void restoredVolumeHoldsTheSnapshottedData() {
    assumeTrue(cluster.client.apiextensions().v1().customResourceDefinitions()
            .withName("volumesnapshots.snapshot.storage.k8s.io").get() != null,
        "the cluster has no snapshot CRDs (install external-snapshotter's CRDs and controller to run this case)");
    cluster.createPvc("source", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
    cluster.startSleeper("writer", "source");
    String token = ClusterFixture.token();
    cluster.exec("writer", "echo " + token + " > " + ClusterFixture.MOUNT + "/file && sync");

    GenericKubernetesResource snapshot = new GenericKubernetesResourceBuilder()
        .withApiVersion("snapshot.storage.k8s.io/v1").withKind("VolumeSnapshot")
        .withNewMetadata().withName("snap").endMetadata()
        .addToAdditionalProperties("spec", Map.of("volumeSnapshotClassName", ClusterFixture.SNAPSHOT_CLASS,
            "source", Map.of("persistentVolumeClaimName", "source")))
        .build();
    var snapshots = cluster.client.genericKubernetesResources(VOLUME_SNAPSHOT).inNamespace(cluster.namespace);
    snapshots.resource(snapshot).create();
    Eventually.await("VolumeSnapshot snap readyToUse", Duration.ofMinutes(15), () -> {
      Object status = snapshots.withName("snap").get().getAdditionalProperties().get("status");
      return status instanceof Map<?, ?> s && Boolean.TRUE.equals(s.get("readyToUse"));
    });

    cluster.createPvc(new PersistentVolumeClaimBuilder().withNewMetadata().withName("restored").endMetadata()
        .withNewSpec().withStorageClassName(ClusterFixture.GP3).withAccessModes("ReadWriteOnce")
        .withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources()
        .withNewDataSource().withApiGroup("snapshot.storage.k8s.io").withKind("VolumeSnapshot").withName("snap")
        .endDataSource().endSpec().build());
    cluster.startSleeper("reader", "restored");
    assertThat(cluster.exec("reader", "cat " + ClusterFixture.MOUNT + "/file")).isEqualTo(token);
  }
}
