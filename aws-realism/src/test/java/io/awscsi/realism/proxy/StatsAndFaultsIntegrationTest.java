package io.awscsi.realism.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.awscsi.realism.AwsClients;
import io.awscsi.realism.AwsError;
import io.awscsi.realism.Fault;
import io.awscsi.realism.InjectedFault;
import io.awscsi.realism.MotoExtension;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.RealismProxy;
import io.awscsi.realism.process.MotoServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;

/** Call accounting (in process and over HTTP) and injected faults. */
@Tag("integration")
@ExtendWith(MotoExtension.class)
class StatsAndFaultsIntegrationTest {

  private RealismProxy proxy;
  private Ec2Client ec2;

  @BeforeEach
  void start(MotoServer moto) {
    proxy = RealismProxy.builder().upstream(moto.endpoint()).profile(RealismProfile.instant()).start();
    proxy.reset();
    ec2 = AwsClients.ec2(proxy.endpoint());
  }

  @AfterEach
  void stop() {
    ec2.close();
    proxy.close();
  }

  @Test
  void callsAreCountedPerActionAndServedAsJson() throws Exception {
    ec2.createVolume(r -> r.availabilityZone("us-east-1a").size(1));
    ec2.createVolume(r -> r.availabilityZone("us-east-1a").size(2));
    ec2.describeVolumes();
    assertThatThrownBy(() -> ec2.describeVolumes(r -> r.volumeIds("vol-0123456789abcdef0")))
        .isInstanceOf(Ec2Exception.class);

    var stats = proxy.stats();
    assertThat(stats.calls("ec2", "CreateVolume")).isEqualTo(2);
    assertThat(stats.action("ec2", "DescribeVolumes").calls()).isEqualTo(2);
    assertThat(stats.action("ec2", "DescribeVolumes").errors()).isEqualTo(1);
    assertThat(stats.action("ec2", "DescribeVolumes").errorCodes()).containsEntry("InvalidVolume.NotFound", 1L);
    assertThat(stats.totalCalls()).isEqualTo(4);

    JsonNode json = new ObjectMapper().readTree(get(proxy.endpoint().resolve("/realism/stats")));
    assertThat(json.at("/services/ec2/CreateVolume/calls").asLong()).isEqualTo(2);
    assertThat(json.at("/services/ec2/DescribeVolumes/errors").asLong()).isEqualTo(1);

    proxy.resetStats();
    assertThat(proxy.stats().totalCalls()).isZero();
  }

  @Test
  void faultAnswersMatchingCallsTheGivenNumberOfTimes() {
    String volumeId = ec2.createVolume(r -> r.availabilityZone("us-east-1a").size(1)).volumeId();
    InjectedFault fault = proxy.injectFault(
        Fault.ec2("DescribeVolumes", AwsError.of(500, "InternalError", "injected"))
            .when(call -> call.hasParam("VolumeId.1", volumeId))
            .times(1));

    assertThat(ec2.describeVolumes().volumes()).hasSize(1);
    assertThatThrownBy(() -> ec2.describeVolumes(r -> r.volumeIds(volumeId)))
        .isInstanceOfSatisfying(Ec2Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(500);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InternalError");
        });
    assertThat(ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes()).hasSize(1);
    assertThat(fault.hits()).isEqualTo(1);
    assertThat(proxy.stats().action("ec2", "DescribeVolumes").errorCodes()).containsEntry("InternalError", 1L);
  }

  @Test
  void removedFaultStopsAnswering() {
    InjectedFault fault = proxy.injectFault(
        Fault.ec2("DescribeVolumes", AwsError.of(503, "Unavailable", "injected")));
    assertThatThrownBy(() -> ec2.describeVolumes()).isInstanceOf(Ec2Exception.class);
    assertThatThrownBy(() -> ec2.describeVolumes()).isInstanceOf(Ec2Exception.class);

    fault.close();

    assertThat(ec2.describeVolumes().volumes()).isEmpty();
    assertThat(fault.hits()).isEqualTo(2);
  }

  @Test
  void faultsAreAddedAndClearedOverHttpForProcessesOutside() throws Exception {
    String refused = ec2.createVolume(r -> r.availabilityZone("us-east-1a").size(1)).volumeId();
    String other = ec2.createVolume(r -> r.availabilityZone("us-east-1a").size(1)).volumeId();
    HttpResponse<String> added = send("POST", "/realism/faults", "{\"service\":\"ec2\",\"action\":\"DescribeVolumes\","
        + "\"status\":400,\"code\":\"UnauthorizedOperation\",\"message\":\"not for you\",\"times\":0,"
        + "\"params\":{\"VolumeId.1\":\"" + refused + "\"}}");
    assertThat(added.statusCode()).isEqualTo(200);

    assertThatThrownBy(() -> ec2.describeVolumes(r -> r.volumeIds(refused)))
        .isInstanceOfSatisfying(Ec2Exception.class, e -> {
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("UnauthorizedOperation");
          assertThat(e.awsErrorDetails().errorMessage()).isEqualTo("not for you");
        });
    assertThat(ec2.describeVolumes(r -> r.volumeIds(other)).volumes()).hasSize(1);

    assertThat(send("DELETE", "/realism/faults", "").statusCode()).isEqualTo(200);
    assertThat(ec2.describeVolumes(r -> r.volumeIds(refused)).volumes()).hasSize(1);
    HttpResponse<String> bad = send("POST", "/realism/faults", "{\"service\":\"ec2\"}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("bad fault");
  }

  @Test
  void aStallOverHttpHoldsTheServiceThenAnswersNormally() throws Exception {
    try (var efs = AwsClients.efs(proxy.endpoint())) {
      String fs = efs.createFileSystem(r -> r.creationToken("stall")).fileSystemId();
      HttpResponse<String> added = send("POST", "/realism/stall",
          "{\"service\":\"efs\",\"action\":\"*\",\"seconds\":2}");
      assertThat(added.statusCode()).isEqualTo(200);

      long start = System.nanoTime();
      assertThat(efs.describeFileSystems(r -> r.fileSystemId(fs)).fileSystems()).hasSize(1);
      assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).as("held, then answered")
          .isGreaterThan(java.time.Duration.ofMillis(1500));
      assertThat(ec2.describeVolumes().volumes()).as("EC2 not held").isEmpty();
      start = System.nanoTime();
      assertThat(efs.describeFileSystems(r -> r.fileSystemId(fs)).fileSystems()).hasSize(1);
      assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).as("over").isLessThan(
          java.time.Duration.ofMillis(1500));
    }
    HttpResponse<String> bad = send("POST", "/realism/stall", "{\"service\":\"efs\",\"action\":\"*\"}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("bad stall");
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    try (var http = HttpClient.newHttpClient()) {
      return http.send(HttpRequest.newBuilder(proxy.endpoint().resolve(path))
          .method(method, HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  private static String get(URI uri) throws Exception {
    try (var http = HttpClient.newHttpClient()) {
      return http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    }
  }
}
