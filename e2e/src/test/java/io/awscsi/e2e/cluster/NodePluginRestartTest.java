package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Restarting the EBS node plugin under a running pod: the pod's mount is the kernel's, not the plugin's, so the pod
 * keeps writing and reading through the restart and the new plugin takes over the node.
 */
@Tag("cluster")
@ExtendWith(ClusterAvailable.class)
class NodePluginRestartTest {

  private static final String WRITER = "i=0; while true; do echo $i >> " + ClusterFixture.MOUNT
      + "/log; sync; i=$((i+1)); sleep 1; done";

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
  void podKeepsWritingWhileTheNodePluginRestarts() {
    cluster.createPvc("data", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
    cluster.startPod("writer", "data", WRITER, null);
    String node = cluster.nodeOf("writer");
    Pod plugin = nodePlugin(node);
    String oldUid = plugin.getMetadata().getUid();

    cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE).resource(plugin).delete();
    Eventually.await("a new ebs-csi-node pod ready on " + node, ClusterFixture.POD_READY, () -> {
      Pod now = nodePlugin(node);
      return !now.getMetadata().getUid().equals(oldUid) && Readiness.isPodReady(now);
    });

    long afterRestart = lines();
    Eventually.await("the writer keeps appending after the restart", Duration.ofSeconds(30),
        () -> lines() >= afterRestart + 5);
    Pod writer = cluster.client.pods().inNamespace(cluster.namespace).withName("writer").get();
    assertThat(writer.getStatus().getContainerStatuses().getFirst().getRestartCount()).isZero();
    // Its log has no gap: every number from 0 to the last is there once.
    List<String> log = cluster.exec("writer", "cat " + ClusterFixture.MOUNT + "/log").lines().toList();
    for (int i = 0; i < log.size(); i++) {
      assertThat(log.get(i)).as("line %d of the writer's log", i).isEqualTo(Integer.toString(i));
    }
  }

  private Pod nodePlugin(String node) {
    return cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE).withLabel("app", "ebs-csi-node")
        .withField("spec.nodeName", node).list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null).findFirst()
        .orElseThrow(() -> new AssertionError("no ebs-csi-node pod on node " + node));
  }

  private long lines() {
    return Long.parseLong(cluster.exec("writer", "wc -l < " + ClusterFixture.MOUNT + "/log").trim());
  }
}
