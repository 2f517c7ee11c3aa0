package io.awscsi.realism.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.realism.MotoExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.InstanceType;

/** Needs moto and {@code ec2-metadata-mock}: IMDS's ENI list follows EC2's attachments; the rest is the mock's. */
@Tag("integration")
@ExtendWith(MotoExtension.class)
class InstanceMetadataFrontIntegrationTest {

  @Test
  void theMacListFollowsTheEnisAttachedInEc2AndTokensAreStillRequired(MotoServer moto) throws Exception {
    try (Ec2Client ec2 = Ec2Client.builder().endpointOverride(moto.endpoint()).region(Region.US_EAST_1)
             .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing")))
             .httpClient(UrlConnectionHttpClient.create()).build()) {
      Instance instance = ec2.runInstances(r -> r.imageId("ami-0123456789abcdef0").minCount(1).maxCount(1)
          .instanceType(InstanceType.M5_LARGE).placement(p -> p.availabilityZone("us-east-1a")))
          .instances().getFirst();
      String primaryMac = instance.networkInterfaces().getFirst().macAddress();
      try (var mock = MetadataMock.builder().instanceId(instance.instanceId()).instanceType("m5.large")
               .availabilityZone("us-east-1a").start();
           var front = InstanceMetadataFront.start(mock.endpoint(), moto.endpoint(), instance.instanceId(),
               "us-east-1");
           var http = HttpClient.newHttpClient()) {
        URI base = front.endpoint();
        assertThat(get(http, base, "/latest/meta-data/instance-id", null).statusCode())
            .as("the mock still refuses a read without a session token").isEqualTo(401);
        String token = http.send(HttpRequest.newBuilder(base.resolve("/latest/api/token"))
            .header("X-aws-ec2-metadata-token-ttl-seconds", "300")
            .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertThat(macs(http, base, token)).containsExactly(primaryMac + "/");
        assertThat(get(http, base, "/latest/meta-data/instance-id", token).body()).isEqualTo(instance.instanceId());

        String eni = ec2.createNetworkInterface(r -> r.subnetId(instance.subnetId())).networkInterface()
            .networkInterfaceId();
        String attachment = ec2.attachNetworkInterface(r -> r.networkInterfaceId(eni)
            .instanceId(instance.instanceId()).deviceIndex(1)).attachmentId();
        String secondMac = ec2.describeNetworkInterfaces(r -> r.networkInterfaceIds(eni)).networkInterfaces()
            .getFirst().macAddress();
        assertThat(macs(http, base, token)).containsExactly(primaryMac + "/", secondMac + "/");

        ec2.detachNetworkInterface(r -> r.attachmentId(attachment));
        assertThat(macs(http, base, token)).containsExactly(primaryMac + "/");
      } finally {
        ec2.terminateInstances(r -> r.instanceIds(instance.instanceId()));
      }
    }
  }

  private static List<String> macs(HttpClient http, URI base, String token) throws Exception {
    HttpResponse<String> answer = get(http, base, InstanceMetadataFront.MACS_PATH, token);
    assertThat(answer.statusCode()).isEqualTo(200);
    return Arrays.stream(answer.body().split("\n")).filter(l -> !l.isBlank()).toList();
  }

  private static HttpResponse<String> get(HttpClient http, URI base, String path, String token) throws Exception {
    var request = HttpRequest.newBuilder(base.resolve(path)).GET();
    if (token != null) {
      request.header("X-aws-ec2-metadata-token", token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
