package io.awscsi.realism.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("integration")
class MotoServerIntegrationTest {

  private static final String CREATE_VOLUME =
      "Action=CreateVolume&Version=2016-11-15&Size=1&AvailabilityZone=us-east-1a";
  private static final String AUTHORIZATION = "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/ec2/aws4_request, "
      + "SignedHeaders=host, Signature=0";

  @Test
  void startsAnswersResetsAndLeavesNoProcessBehind() throws Exception {
    long pid;
    URI endpoint;
    try (var moto = MotoServer.start(); var http = HttpClient.newHttpClient()) {
      pid = moto.pid();
      endpoint = moto.endpoint();
      assertThat(endpoint.getHost()).isEqualTo("127.0.0.1");
      ec2(http, endpoint, CREATE_VOLUME);
      assertThat(ec2(http, endpoint, "Action=DescribeVolumes&Version=2016-11-15")).contains("<volumeId>");

      moto.reset();

      assertThat(ec2(http, endpoint, "Action=DescribeVolumes&Version=2016-11-15")).doesNotContain("<volumeId>");
    }
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    try (var http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
      assertThatThrownBy(() -> ec2(http, endpoint, CREATE_VOLUME))
          .isInstanceOf(IOException.class);
    }
  }

  private static String ec2(HttpClient http, URI endpoint, String form) throws Exception {
    var request = HttpRequest.newBuilder(endpoint)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Authorization", AUTHORIZATION)
        .POST(HttpRequest.BodyPublishers.ofString(form)).build();
    return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
  }
}
