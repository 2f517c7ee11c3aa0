package io.awscsi.core.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.Readiness;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * {@code --http-endpoint}: {@code /livez} (also {@code /healthz}: the process serves, as Probe), {@code /readyz}
 * (live, and the cloud answered the driver's recent calls) and Prometheus {@code /metrics}. Not ready is 503 with
 * the reason.
 */
public final class HttpEndpoint implements AutoCloseable {

  private final HttpServer server;

  private HttpEndpoint(HttpServer server) {
    this.server = server;
  }

  /** Parses {@code host:port} or {@code :port} (all interfaces). */
  public static InetSocketAddress parseAddress(String value) {
    int colon = value.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("--http-endpoint " + value + " must be host:port or :port");
    }
    String host = value.substring(0, colon);
    int port;
    try {
      port = Integer.parseInt(value.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--http-endpoint " + value + " has no numeric port");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--http-endpoint " + value + " has a port outside 0-65535");
    }
    return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
  }

  public static HttpEndpoint start(InetSocketAddress address, Supplier<Readiness> liveness,
      Supplier<Readiness> readiness, MetricsRegistry metrics) throws IOException {
    HttpServer server = HttpServer.create(address, 16);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/livez", exchange -> health(exchange, liveness.get(), "not live"));
    server.createContext("/healthz", exchange -> health(exchange, liveness.get(), "not live"));
    server.createContext("/readyz", exchange -> health(exchange, readiness.get(), "not ready"));
    server.createContext("/metrics", exchange ->
        respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape()));
    server.start();
    return new HttpEndpoint(server);
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  private static void health(HttpExchange exchange, Readiness r, String negative) throws IOException {
    if (r instanceof Readiness.NotReady(String reason)) {
      respond(exchange, 503, "text/plain", negative + ": " + reason + "\n");
    } else {
      respond(exchange, 200, "text/plain", "ok\n");
    }
  }

  private static void respond(HttpExchange exchange, int code, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
