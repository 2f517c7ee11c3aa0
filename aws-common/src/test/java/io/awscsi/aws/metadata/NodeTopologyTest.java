package io.awscsi.aws.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeTopologyTest {

  private static final InstanceMetadata EC2 =
      new InstanceMetadata("i-0abc", "m7i.large", "us-west-2", "us-west-2b", "usw2-az2", 1, 0, null);

  @Test
  void ebsReportsItsZoneKeyTheWellKnownZoneAndTheOs() {
    assertThat(NodeTopology.segments(EC2, "ebs.csi.aws.com"))
        .isEqualTo(
            Map.of(
                "topology.ebs.csi.aws.com/zone", "us-west-2b",
                "topology.kubernetes.io/zone", "us-west-2b",
                "kubernetes.io/os", "linux"));
  }

  @Test
  void ebsOnAnOutpostAddsTheOutpostKeys() {
    OutpostArn outpost = new OutpostArn("aws", "us-west-2", "111122223333", "op-0abc");
    InstanceMetadata onOutpost =
        new InstanceMetadata("i-0abc", "m5.large", "us-west-2", "us-west-2b", null, 1, 0, outpost);

    assertThat(NodeTopology.segments(onOutpost, "ebs.csi.aws.com"))
        .containsEntry("topology.ebs.csi.aws.com/region", "us-west-2")
        .containsEntry("topology.ebs.csi.aws.com/partition", "aws")
        .containsEntry("topology.ebs.csi.aws.com/account-id", "111122223333")
        .containsEntry("topology.ebs.csi.aws.com/outpost-id", "op-0abc")
        .containsEntry("topology.ebs.csi.aws.com/zone", "us-west-2b")
        .hasSize(7);
  }

  @Test
  void efsReportsTheWellKnownZoneOnly() {
    assertThat(NodeTopology.segments(EC2, "efs.csi.aws.com"))
        .isEqualTo(Map.of("topology.kubernetes.io/zone", "us-west-2b"));
  }

  @Test
  void anotherDriverNameIsRejected() {
    assertThatThrownBy(() -> NodeTopology.segments(EC2, "fsx.csi.aws.com"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fsx.csi.aws.com");
  }
}
