package io.awscsi.realism.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Needs {@code ec2-metadata-mock}: {@value MetadataMock#INSTALL_COMMAND}. */
@Tag("integration")
class MetadataMockIntegrationTest {

  @Test
  void reportsTheConfiguredIdentityEverywhereAndRequiresTokens() throws Exception {
    long pid;
    try (var mock = MetadataMock.builder().instanceId("i-0abc1234def567890").instanceType("m5.large")
             .availabilityZone("eu-west-1b").start();
         var http = HttpClient.newHttpClient()) {
      pid = mock.pid();
      URI base = mock.endpoint();

      assertThat(get(http, base, "/latest/meta-data/instance-id", null).statusCode()).isEqualTo(401);
      String token = http.send(HttpRequest.newBuilder(base.resolve("/latest/api/token"))
          .header("X-aws-ec2-metadata-token-ttl-seconds", "300")
          .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).body();

      assertThat(get(http, base, "/latest/meta-data/instance-id", token).body()).isEqualTo("i-0abc1234def567890");
      assertThat(get(http, base, "/latest/meta-data/instance-type", token).body()).isEqualTo("m5.large");
      assertThat(get(http, base, "/latest/meta-data/placement/availability-zone", token).body())
          .isEqualTo("eu-west-1b");
      assertThat(get(http, base, "/latest/meta-data/placement/region", token).body()).isEqualTo("eu-west-1");
      var document = new ObjectMapper().readTree(
          get(http, base, "/latest/dynamic/instance-identity/document", token).body());
      assertThat(document.path("instanceId").asText()).isEqualTo("i-0abc1234def567890");
      assertThat(document.path("instanceType").asText()).isEqualTo("m5.large");
      assertThat(document.path("availabilityZone").asText()).isEqualTo("eu-west-1b");
      assertThat(document.path("region").asText()).isEqualTo("eu-west-1");
    }
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
  }

  private static HttpResponse<String> get(HttpClient http, URI base, String path, String token) throws Exception {
    var request = HttpRequest.newBuilder(base.resolve(path)).GET();
    if (token != null) {
      request.header("X-aws-ec2-metadata-token", token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
