package io.awscsi.realism.process;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.awscsi.realism.proxy.Xml;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.w3c.dom.Element;

/**
 * IMDS in front of amazon-ec2-metadata-mock whose network interface list follows the emulated EC2: the mock answers
 * from a configuration fixed at its start, while on EC2 {@code network/interfaces/macs} changes when an ENI is
 * attached or detached (the VPC CNI attaches them as pods arrive, and they take EBS attachment slots on most Nitro
 * types). Every request goes to the mock, which keeps checking the IMDSv2 session token; a successful answer for the
 * MAC list is replaced by the MACs of the instance's network interfaces as EC2's DescribeInstances reports them now.
 * Close it to stop serving (the mock is the caller's).
 */
public final class InstanceMetadataFront implements AutoCloseable {

  static final String MACS_PATH = "/latest/meta-data/network/interfaces/macs";

  private static final Logger LOG = LogManager.getLogger(InstanceMetadataFront.class);
  private static final Set<String> SKIPPED_REQUEST_HEADERS =
      Set.of("connection", "content-length", "expect", "host", "upgrade", "transfer-encoding", "keep-alive");
  private static final Set<String> SKIPPED_RESPONSE_HEADERS =
      Set.of("connection", "content-length", "transfer-encoding", "date", "keep-alive", "server");

  private final HttpServer server;
  private final ExecutorService threads;
  private final HttpClient client;
  private final URI mock;
  private final URI ec2;
  private final String instanceId;
  private final String region;

  private InstanceMetadataFront(HttpServer server, ExecutorService threads, URI mock, URI ec2, String instanceId,
      String region) {
    this.server = server;
    this.threads = threads;
    this.mock = mock;
    this.ec2 = ec2;
    this.instanceId = instanceId;
    this.region = region;
    this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();
  }

  /**
   * Serves on a free loopback port.
   *
   * @param mock the IMDS emulator's endpoint
   * @param ec2 the emulated EC2 endpoint asked for {@code instanceId}'s network interfaces: the emulator itself
   *     rather than the realism layer, so that IMDS reads do not count as EC2 calls in its statistics
   */
  public static InstanceMetadataFront start(URI mock, URI ec2, String instanceId, String region) {
    Objects.requireNonNull(mock, "mock");
    Objects.requireNonNull(ec2, "ec2");
    Objects.requireNonNull(instanceId, "instanceId");
    Objects.requireNonNull(region, "region");
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
      var front = new InstanceMetadataFront(server, threads, mock, ec2, instanceId, region);
      server.setExecutor(threads);
      server.createContext("/", front::handle);
      server.start();
      LOG.info("IMDS front on 127.0.0.1:{} (ENIs of {} from {})", server.getAddress().getPort(), instanceId, ec2);
      return front;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the IMDS front", e);
    }
  }

  /** The IMDS endpoint, for {@code AWS_EC2_METADATA_SERVICE_ENDPOINT}. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      URI uri = exchange.getRequestURI();
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      HttpRequest.Builder request = HttpRequest.newBuilder(mock.resolve(uri.getRawPath()
              + (uri.getRawQuery() != null ? "?" + uri.getRawQuery() : "")))
          .timeout(Duration.ofSeconds(10))
          .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofByteArray(body));
      exchange.getRequestHeaders().forEach((name, values) -> {
        if (!SKIPPED_REQUEST_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
          values.forEach(v -> request.header(name, v));
        }
      });
      HttpResponse<byte[]> answer;
      try {
        answer = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        exchange.sendResponseHeaders(503, -1);
        return;
      } catch (IOException e) {
        LOG.warn("IMDS emulator did not answer {} {}: {}", method, uri, e.getMessage());
        exchange.sendResponseHeaders(502, -1);
        return;
      }
      byte[] out = answer.body();
      if (answer.statusCode() == 200 && method.equals("GET") && isMacList(uri.getPath())) {
        try {
          out = macList().getBytes(StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
          LOG.warn("ENIs of {} unknown, answering the emulator's fixed list: {}", instanceId, e.getMessage());
        }
      }
      answer.headers().map().forEach((name, values) -> {
        if (!SKIPPED_RESPONSE_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
          exchange.getResponseHeaders().put(name, values);
        }
      });
      exchange.sendResponseHeaders(answer.statusCode(), out.length == 0 ? -1 : out.length);
      if (out.length > 0) {
        exchange.getResponseBody().write(out);
      }
    }
  }

  private static boolean isMacList(String path) {
    return path.equals(MACS_PATH) || path.equals(MACS_PATH + "/");
  }

  /** {@code mac/} per line, as IMDS lists them, in device-index order. */
  private String macList() throws IOException {
    return String.join("\n", attachedMacs().stream().map(mac -> mac + "/").toList());
  }

  /** The MAC addresses of the network interfaces attached to the instance now, from EC2 DescribeInstances. */
  List<String> attachedMacs() throws IOException {
    String form = "Action=DescribeInstances&Version=2016-11-15&InstanceId.1="
        + URLEncoder.encode(instanceId, StandardCharsets.UTF_8);
    // The credential scope picks moto's region; moto does not check the signature.
    HttpRequest request = HttpRequest.newBuilder(ec2).timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
        .header("Authorization", "AWS4-HMAC-SHA256 Credential=testing/20260101/" + region
            + "/ec2/aws4_request, SignedHeaders=host, Signature=0")
        .POST(HttpRequest.BodyPublishers.ofString(form)).build();
    HttpResponse<byte[]> response;
    try {
      response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while asking EC2 for " + instanceId, e);
    }
    if (response.statusCode() != 200) {
      throw new IOException("EC2 DescribeInstances " + instanceId + " answered " + response.statusCode() + ": "
          + new String(response.body(), StandardCharsets.UTF_8));
    }
    record Interface(int deviceIndex, String mac) {}
    List<Interface> interfaces = new ArrayList<>();
    Element root = Xml.parse(response.body()).getDocumentElement();
    for (Element reservation : Xml.items(root, "reservationSet")) {
      for (Element instance : Xml.items(reservation, "instancesSet")) {
        for (Element eni : Xml.items(instance, "networkInterfaceSet")) {
          int index = Xml.child(eni, "attachment").flatMap(a -> Xml.text(a, "deviceIndex"))
              .map(Integer::parseInt).orElse(Integer.MAX_VALUE);
          Xml.text(eni, "macAddress").ifPresent(mac -> interfaces.add(new Interface(index, mac)));
        }
      }
    }
    return interfaces.stream().sorted(Comparator.comparingInt(Interface::deviceIndex))
        .map(Interface::mac).toList();
  }

  @Override
  public void close() {
    server.stop(0);
    threads.close();
    client.close();
  }
}
