package io.awscsi.aws.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A minimal IMDSv2 on 127.0.0.1, for tests that must not depend on amazon-ec2-metadata-mock: PUT {@code
 * /latest/api/token} hands out one token (its TTL echoed in a header), GETs without it get 401, paths it does not know
 * 404.
 */
public final class FakeImdsServer implements AutoCloseable {

  public static final String TOKEN = "fake-imds-token";

  /** What arrived: method, path, and the token and token-TTL headers ("" when absent). */
  public record Request(String method, String path, String token, String tokenTtl) {}

  private final HttpServer server;
  private final Map<String, String> paths;
  private final List<Request> requests = new CopyOnWriteArrayList<>();

  private FakeImdsServer(HttpServer server, Map<String, String> paths) {
    this.server = server;
    this.paths = new java.util.concurrent.ConcurrentHashMap<>(paths);
  }

  /** Serves {@code paths} (path to body, e.g. {@code /latest/meta-data/instance-id -> i-1}). */
  public static FakeImdsServer start(Map<String, String> paths) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      FakeImdsServer imds = new FakeImdsServer(server, paths);
      server.createContext("/", imds::handle);
      server.start();
      return imds;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Answers {@code path} with {@code body} from now on, as IMDS does when the instance changes (an ENI attached). */
  public void put(String path, String body) {
    paths.put(path, body);
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  public List<Request> requests() {
    return List.copyOf(requests);
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private void handle(HttpExchange exchange) throws IOException {
    String method = exchange.getRequestMethod();
    String path = exchange.getRequestURI().getPath();
    String token = headerOrEmpty(exchange, "X-aws-ec2-metadata-token");
    String ttl = headerOrEmpty(exchange, "X-aws-ec2-metadata-token-ttl-seconds");
    requests.add(new Request(method, path, token, ttl));
    exchange.getRequestBody().readAllBytes();
    if (path.equals("/latest/api/token")) {
      // As IMDS does, the token's TTL comes back in a header; the SDK requires it.
      exchange.getResponseHeaders().add("X-aws-ec2-metadata-token-ttl-seconds", ttl);
      answer(exchange, method.equals("PUT") && !ttl.isEmpty() ? 200 : 400, TOKEN);
    } else if (!method.equals("GET") || !token.equals(TOKEN)) {
      answer(exchange, 401, "");
    } else {
      String body = paths.get(path);
      answer(exchange, body != null ? 200 : 404, body != null ? body : "Not Found");
    }
  }

  private static String headerOrEmpty(HttpExchange exchange, String name) {
    String value = exchange.getRequestHeaders().getFirst(name);
    return value != null ? value : "";
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "text/plain");
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }
}
