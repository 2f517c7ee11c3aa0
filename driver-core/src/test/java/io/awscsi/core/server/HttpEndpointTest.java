package io.awscsi.core.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.Readiness;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The HTTP endpoint on a real loopback port. */
class HttpEndpointTest {

  private final AtomicReference<Readiness> liveness = new AtomicReference<>(Readiness.ready());
  private final AtomicReference<Readiness> readiness = new AtomicReference<>(Readiness.ready());
  private final MetricsRegistry metrics = new MetricsRegistry();
  private HttpEndpoint endpoint;
  private HttpClient client;

  @BeforeEach
  void start() throws Exception {
    endpoint = HttpEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), liveness::get,
        readiness::get, metrics);
    client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  }

  @AfterEach
  void stop() {
    client.close();
    endpoint.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + endpoint.address().getPort() + path);
    return client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void readyzFollowsReadinessWhileLivezAndHealthzStayUp() throws Exception {
    HttpResponse<String> ready = get("/readyz");
    readiness.set(new Readiness.NotReady("controller: EC2 did not answer"));
    HttpResponse<String> notReady = get("/readyz");
    HttpResponse<String> liveMeanwhile = get("/livez");
    HttpResponse<String> healthzMeanwhile = get("/healthz");
    readiness.set(Readiness.ready());
    HttpResponse<String> readyAgain = get("/readyz");

    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.body()).isEqualTo("ok\n");
    assertThat(notReady.statusCode()).isEqualTo(503);
    assertThat(notReady.body()).isEqualTo("not ready: controller: EC2 did not answer\n");
    assertThat(liveMeanwhile.statusCode()).as("a controller cut off from AWS is still live").isEqualTo(200);
    assertThat(healthzMeanwhile.statusCode()).isEqualTo(200);
    assertThat(readyAgain.statusCode()).isEqualTo(200);
  }

  @Test
  void livezAndHealthzFollowLiveness() throws Exception {
    liveness.set(new Readiness.NotReady("node: reading this node's instance metadata"));

    assertThat(get("/livez").statusCode()).isEqualTo(503);
    assertThat(get("/healthz").body()).isEqualTo("not live: node: reading this node's instance metadata\n");
  }

  @Test
  void metricsServesTheRegistryInPrometheusTextFormat() throws Exception {
    metrics.counter("csi_operations_total", "CSI calls", "method", "grpc_code").inc("NodeStageVolume", "OK");

    HttpResponse<String> response = get("/metrics");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
    assertThat(response.body()).contains("# TYPE csi_operations_total counter\n",
        "csi_operations_total{method=\"NodeStageVolume\",grpc_code=\"OK\"} 1\n");
  }

  @Test
  void otherPathsAreNotFound() throws Exception {
    assertThat(get("/").statusCode()).isEqualTo(404);
  }

  @ParameterizedTest(name = "{0} -> {1}:{2}")
  @CsvSource({
      "127.0.0.1:9808, 127.0.0.1, 9808",
      "localhost:8080, localhost, 8080",
      ":3301,          0.0.0.0,   3301",
  })
  void parsesHostAndPort(String value, String host, int port) {
    InetSocketAddress address = HttpEndpoint.parseAddress(value);

    assertThat(address.getPort()).isEqualTo(port);
    assertThat(address.getHostString()).isEqualTo(host);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "9808            | must be host:port or :port",
      "127.0.0.1:http  | has no numeric port",
      "127.0.0.1:70000 | has a port outside 0-65535",
      "127.0.0.1:-1    | has a port outside 0-65535",
  })
  void refusesMalformedAddresses(String value, String fix) {
    assertThatThrownBy(() -> HttpEndpoint.parseAddress(value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--http-endpoint " + value + " " + fix);
  }
}
