package io.awscsi.aws.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.awscsi.aws.testing.RecordingHttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;

class PlainHttpSdkClientTest {

  private static final PlainHttpSdkClient.Timeouts SHORT =
      new PlainHttpSdkClient.Timeouts(Duration.ofSeconds(1), Duration.ofSeconds(2));

  private final PlainHttpSdkClient client = new PlainHttpSdkClient(SHORT);

  /** Released after each test so that a handler still waiting does not hold the server's stop. */
  private final CountDownLatch release = new CountDownLatch(1);

  private HttpServer slowServer;

  @AfterEach
  void stopServers() {
    release.countDown();
    if (slowServer != null) {
      slowServer.stop(0);
    }
    client.close();
  }

  @Test
  void getSendsTheHeadersAndReturnsStatusHeadersAndBody() throws Exception {
    try (RecordingHttpServer server = RecordingHttpServer.start(200, "text/plain", "i-0abc123def4567890")) {
      HttpExecuteResponse response =
          client
              .prepareRequest(
                  request(
                      SdkHttpRequest.builder()
                          .uri(URI.create(server.endpoint() + "/latest/meta-data/instance-id"))
                          .method(SdkHttpMethod.GET)
                          .putHeader("X-aws-ec2-metadata-token", "token-1")
                          .putHeader("X-aws-ec2-metadata-token-ttl-seconds", "21600")
                          .build(),
                      null))
              .call();

      assertThat(response.httpResponse().statusCode()).isEqualTo(200);
      assertThat(response.httpResponse().firstMatchingHeader("content-type")).hasValue("text/plain");
      assertThat(body(response)).isEqualTo("i-0abc123def4567890");
      assertThat(server.requests())
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.method()).isEqualTo("GET");
                assertThat(r.target()).isEqualTo("/latest/meta-data/instance-id");
                assertThat(r.header("X-aws-ec2-metadata-token")).isEqualTo("token-1");
                assertThat(r.header("X-aws-ec2-metadata-token-ttl-seconds")).isEqualTo("21600");
              });
    }
  }

  @Test
  void putSendsTheBody() throws Exception {
    try (RecordingHttpServer server = RecordingHttpServer.start(200, "text/plain", "ok")) {
      HttpExecuteResponse response =
          client
              .prepareRequest(
                  request(
                      SdkHttpRequest.builder()
                          .uri(URI.create(server.endpoint() + "/upload"))
                          .method(SdkHttpMethod.PUT)
                          .putHeader("Content-Type", "text/plain")
                          .build(),
                      ContentStreamProvider.fromUtf8String("a body of 19 bytes")))
              .call();

      assertThat(response.httpResponse().statusCode()).isEqualTo(200);
      assertThat(server.requests())
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.method()).isEqualTo("PUT");
                assertThat(r.body()).isEqualTo("a body of 19 bytes");
              });
    }
  }

  @Test
  void theTokenRequestIsAPutWithoutBody() throws Exception {
    try (RecordingHttpServer server = RecordingHttpServer.start(200, "text/plain", "token-1")) {
      HttpExecuteResponse response =
          client
              .prepareRequest(
                  request(
                      SdkHttpRequest.builder()
                          .uri(URI.create(server.endpoint() + "/latest/api/token"))
                          .method(SdkHttpMethod.PUT)
                          .putHeader("X-aws-ec2-metadata-token-ttl-seconds", "21600")
                          .build(),
                      null))
              .call();

      assertThat(body(response)).isEqualTo("token-1");
      assertThat(server.requests())
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.method()).isEqualTo("PUT");
                assertThat(r.body()).isEmpty();
                assertThat(r.header("X-aws-ec2-metadata-token-ttl-seconds")).isEqualTo("21600");
              });
    }
  }

  @Test
  void anErrorStatusComesWithItsBody() throws Exception {
    try (RecordingHttpServer server = RecordingHttpServer.start(404, "text/html", "<title>404 - Not Found</title>")) {
      HttpExecuteResponse response =
          client.prepareRequest(get(server.endpoint() + "/latest/meta-data/outpost-arn")).call();

      assertThat(response.httpResponse().statusCode()).isEqualTo(404);
      assertThat(response.httpResponse().statusText()).hasValue("Not Found");
      assertThat(body(response)).isEqualTo("<title>404 - Not Found</title>");
    }
  }

  @Test
  void theReadTimeoutEndsAWaitForAnAnswer() throws Exception {
    URI endpoint = startSlowServer(new CountDownLatch(1));
    try (var impatient =
        new PlainHttpSdkClient(new PlainHttpSdkClient.Timeouts(Duration.ofSeconds(1), Duration.ofMillis(200)))) {
      // The server would answer 200 after 5 s; the exception shows the read timeout ended the call first.
      assertThatThrownBy(() -> impatient.prepareRequest(get(endpoint + "/slow")).call())
          .isInstanceOf(SocketTimeoutException.class);
    }
  }

  @Test
  void httpsIsRefusedBeforeAnyConnection() {
    assertThatThrownBy(() -> client.prepareRequest(get("https://169.254.169.254/latest/api/token")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("https://169.254.169.254/latest/api/token")
        .hasMessageContaining("plain http only");
  }

  @Test
  void abortDisconnectsARequestInFlight() throws Exception {
    CountDownLatch arrived = new CountDownLatch(1);
    URI endpoint = startSlowServer(arrived);
    try (var patient =
            new PlainHttpSdkClient(new PlainHttpSdkClient.Timeouts(Duration.ofSeconds(1), Duration.ofSeconds(30)));
        ExecutorService caller = Executors.newVirtualThreadPerTaskExecutor()) {
      ExecutableHttpRequest exchange = patient.prepareRequest(get(endpoint + "/slow"));
      Future<HttpExecuteResponse> call = caller.submit(exchange);
      assertThat(arrived.await(5, TimeUnit.SECONDS)).as("the request reached the server").isTrue();

      exchange.abort();

      // Long before the 30 s read timeout and the server's answer at 5 s.
      assertThatThrownBy(() -> call.get(3, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(IOException.class);
    }
  }

  @Test
  void anAbortedRequestIsNotSent() throws Exception {
    try (RecordingHttpServer server = RecordingHttpServer.start(200, "text/plain", "never")) {
      ExecutableHttpRequest exchange = client.prepareRequest(get(server.endpoint() + "/latest/meta-data/"));
      exchange.abort();

      assertThatThrownBy(exchange::call).isInstanceOf(IOException.class).hasMessageContaining("aborted");
      assertThat(server.requests()).isEmpty();
    }
  }

  @Test
  void aClosedClientTakesNoNewRequests() {
    client.close();

    assertThatThrownBy(() -> client.prepareRequest(get("http://127.0.0.1:1/")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void negativeTimeoutsAreRefused() {
    assertThatThrownBy(() -> new PlainHttpSdkClient.Timeouts(Duration.ofSeconds(1), Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("read timeout");
  }

  /** A server that answers /slow only when the test ends (or after 5 s); {@code arrived} counts down per request. */
  private URI startSlowServer(CountDownLatch arrived) throws IOException {
    slowServer = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    slowServer.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    slowServer.createContext(
        "/slow",
        exchange -> {
          arrived.countDown();
          try {
            release.await(5, TimeUnit.SECONDS);
            exchange.sendResponseHeaders(200, -1);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            exchange.close();
          }
        });
    slowServer.start();
    return URI.create("http://127.0.0.1:" + slowServer.getAddress().getPort());
  }

  private static HttpExecuteRequest get(String uri) {
    return request(SdkHttpRequest.builder().uri(URI.create(uri)).method(SdkHttpMethod.GET).build(), null);
  }

  private static HttpExecuteRequest request(SdkHttpRequest request, ContentStreamProvider body) {
    return HttpExecuteRequest.builder().request(request).contentStreamProvider(body).build();
  }

  private static String body(HttpExecuteResponse response) throws IOException {
    try (InputStream in = response.responseBody().orElseThrow()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
