package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Node;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** An EFS access-point volume mounted ReadWriteMany by pods on two nodes: each sees what the other writes. */
@Tag("cluster")
@ExtendWith(ClusterAvailable.class)
class EfsSharedVolumeTest {

  private ClusterFixture cluster;

  @BeforeEach
  void open() {
    String fileSystemId = System.getenv("E2E_EFS_FILESYSTEM_ID");
    assumeTrue(fileSystemId != null && !fileSystemId.isBlank(), "E2E_EFS_FILESYSTEM_ID is not set: the EFS case"
        + " needs a file system with mount targets in the nodes' subnets (the chart's efs-sc class uses it)");
    cluster = ClusterFixture.open();
  }

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void podsOnTwoNodesShareOneVolume() {
    List<Node> nodes = cluster.schedulableNodes();
    assumeTrue(nodes.size() >= 2, "needs two schedulable nodes, the cluster has " + nodes.size());
    String first = nodes.get(0).getMetadata().getName();
    String second = nodes.get(1).getMetadata().getName();
    cluster.createPvc("shared", ClusterFixture.EFS_CLASS, "5Gi", "ReadWriteMany");
    cluster.startPod("one", "shared", "sleep 86400", first);
    cluster.startPod("two", "shared", "sleep 86400", second);
    assertThat(cluster.nodeOf("one")).isNotEqualTo(cluster.nodeOf("two"));

    String fromOne = ClusterFixture.token();
    cluster.exec("one", "echo " + fromOne + " > " + ClusterFixture.MOUNT + "/from-one");
    assertThat(cluster.exec("two", "cat " + ClusterFixture.MOUNT + "/from-one")).isEqualTo(fromOne);
    String fromTwo = ClusterFixture.token();
    cluster.exec("two", "echo " + fromTwo + " > " + ClusterFixture.MOUNT + "/from-two");
    assertThat(cluster.exec("one", "cat " + ClusterFixture.MOUNT + "/from-two")).isEqualTo(fromTwo);
  }
}
