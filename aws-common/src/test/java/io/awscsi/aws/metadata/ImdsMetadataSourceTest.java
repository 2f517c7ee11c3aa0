package io.awscsi.aws.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.Environment;
import io.awscsi.realism.process.MetadataMock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Against amazon-ec2-metadata-mock with IMDSv2 enforced. */
@Tag("integration")
class ImdsMetadataSourceTest {

  private static MetadataMock mock;

  @BeforeAll
  static void startMock() throws Exception {
    mock = MetadataMock.builder().instanceId("i-0abc123def4567890").instanceType("m7i.large")
        .availabilityZone("us-west-2b").availabilityZoneId("usw2-az2").start();
  }

  @AfterAll
  static void stopMock() {
    if (mock != null) {
      mock.close();
    }
  }

  @Test
  void theMockRefusesRequestsWithoutASessionToken() throws Exception {
    HttpResponse<Void> response = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(mock.endpoint() + "/latest/meta-data/instance-id")).GET().build(),
        HttpResponse.BodyHandlers.discarding());
    assertThat(response.statusCode()).isEqualTo(401);
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
