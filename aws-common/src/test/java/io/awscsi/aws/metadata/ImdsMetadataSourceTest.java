package io.awscsi.aws.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.Environment;
import io.awscsi.aws.testing.Ec2MetadataMockProcess;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Against amazon-ec2-metadata-mock with IMDSv2 enforced. */
@Tag("integration")
class ImdsMetadataSourceTest {

  private static Ec2MetadataMockProcess mock;

  @BeforeAll
  static void startMock() throws Exception {
    mock = Ec2MetadataMockProcess.start("i-0abc123def4567890", "m7i.large", "us-west-2", "us-west-2b", "usw2-az2");
  }

  @AfterAll
  static void stopMock() {
    if (mock != null) {
      mock.close();
    }
  }

  @Test
  void theMockRefusesRequestsWithoutASessionToken() throws Exception {
    assertThat(mock.statusWithoutToken("/latest/meta-data/instance-id")).isEqualTo(401);
  }

  @Test
  void readsTheInstanceWithImdsV2Tokens() throws Exception {
    try (ImdsMetadataSource imds = ImdsMetadataSource.builder().endpoint(mock.endpoint()).build()) {
      InstanceMetadata metadata = imds.fetch();

      // The mock serves one MAC and the block device mapping "ami, ebs0, ephemeral0, root, swap"; no outpost-arn (404).
      assertThat(metadata)
          .isEqualTo(
              new InstanceMetadata(
                  "i-0abc123def4567890", "m7i.large", "us-west-2", "us-west-2b", "usw2-az2", 1, 1, null));
      assertThat(imds.attachedEniCount()).isEqualTo(1);
    }
  }

  @Test
  void theStandardResolverFindsImdsThroughTheSdkEndpointVariable() throws Exception {
    Environment env =
        Environment.of(Map.of("AWS_EC2_METADATA_SERVICE_ENDPOINT", mock.endpoint().toString(), "CSI_NODE_NAME", "n"));
    try (InstanceMetadataResolver resolver =
        InstanceMetadataResolver.standard(
            InstanceMetadataResolver.DEFAULT_SOURCES,
            env,
            () -> {
              throw new AssertionError("IMDS answered, so the Kubernetes API must not be asked");
            })) {
      assertThat(resolver.resolve().instanceId()).isEqualTo("i-0abc123def4567890");
    }
  }
}
