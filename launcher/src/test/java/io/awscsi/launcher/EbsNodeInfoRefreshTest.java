package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.metadata.ImdsMetadataSource;
import io.awscsi.aws.testing.FakeImdsServer;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.NodeProvider;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The EBS node as the launcher builds it counts the ENIs again at every NodeGetInfo (upstream's UpdateMetadata), so
 * an ENI attached after start lowers {@code max_volumes_per_node} on a type whose limit is shared with ENIs; the
 * flags that fix the limit keep it fixed.
 */
class EbsNodeInfoRefreshTest {

  private static final String MACS = "/latest/meta-data/network/interfaces/macs";
  private static final String ONE_MAC = "0e:11:22:33:44:55/";
  private static final String THREE_MACS = "0e:11:22:33:44:55/\n0e:11:22:33:44:66/\n0e:11:22:33:44:77/";

  private FakeImdsServer imds;

  @BeforeEach
  void startImds() {
    imds = FakeImdsServer.start(Map.of(
        "/latest/dynamic/instance-identity/document",
        """
        {"instanceId":"i-0abc0000000000003","instanceType":"m5.large","region":"us-east-1",
         "availabilityZone":"us-east-1a"}""",
        MACS, ONE_MAC,
        "/latest/meta-data/block-device-mapping", "ami\nroot"));
  }

  @AfterEach
  void stopImds() {
    if (imds != null) {
      imds.close();
    }
  }

  @Test
  void anEniAttachedAfterStartTakesASlotAtTheNextNodeGetInfo() {
    // m5.large: 27 attachments shared with ENIs, minus the root volume, minus the ENIs beyond the first.
    assertThat(maxVolumesPerNodeBeforeAndAfterTwoMoreEnis()).containsExactly(26L, 24L);
  }

  @Test
  void anExplicitLimitStaysAsItIs() {
    assertThat(maxVolumesPerNodeBeforeAndAfterTwoMoreEnis("--volume-attach-limit=40")).containsExactly(40L, 40L);
  }

  @Test
  void reservedAttachmentsReplaceTheBootMappingsButEnisStillCount() {
    assertThat(maxVolumesPerNodeBeforeAndAfterTwoMoreEnis("--reserved-volume-attachments=5"))
        .containsExactly(22L, 20L);
  }

  @Test
  void whenImdsStopsAnsweringTheLastCountStays() {
    DriverFactories.Built built = build();
    try {
      NodeProvider node = built.provider().node().orElseThrow();
      imds.put(MACS, THREE_MACS);
      assertThat(node.nodeInfo().maxVolumesPerNode()).isEqualTo(24L);
      imds.close();
      imds = null;
      assertThat(node.nodeInfo().maxVolumesPerNode()).isEqualTo(24L);
    } finally {
      DriverFactories.closeQuietly(built.provider());
    }
  }

  private long[] maxVolumesPerNodeBeforeAndAfterTwoMoreEnis(String... flags) {
    DriverFactories.Built built = build(flags);
    try {
      NodeProvider node = built.provider().node().orElseThrow();
      long before = node.nodeInfo().maxVolumesPerNode();
      imds.put(MACS, THREE_MACS);
      return new long[] {before, node.nodeInfo().maxVolumesPerNode()};
    } finally {
      DriverFactories.closeQuietly(built.provider());
    }
  }

  private DriverFactories.Built build(String... flags) {
    String[] args = new String[flags.length + 3];
    args[0] = "node";
    args[1] = "--driver=ebs";
    args[2] = "--metadata-sources=imds";
    System.arraycopy(flags, 0, args, 3, flags.length);
    DriverOptions o = DriverOptions.parse(args, Map.of());
    return DriverFactories.create(o, new MetricsRegistry(), Map.of(
        ImdsMetadataSource.ENDPOINT_VARIABLE, imds.endpoint().toString(), "AWS_REGION", "us-east-1"));
  }
}
