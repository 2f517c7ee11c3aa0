package io.awscsi.aws.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** An HTTP server on 127.0.0.1 that records every request and answers each with one fixed response. */
public final class RecordingHttpServer implements AutoCloseable {

  /** What arrived: method, path and query, headers (lower-case names, first value), body. */
  public record Request(String method, String target, Map<String, String> headers, String body) {

    public String header(String name) {
      return headers.getOrDefault(name.toLowerCase(Locale.ROOT), "");
    }
  }

  private final HttpServer server;
  private final List<Request> requests = new CopyOnWriteArrayList<>();

  private RecordingHttpServer(HttpServer server) {
    this.server = server;
  }

  public static RecordingHttpServer start(int status, String contentType, String body) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      RecordingHttpServer recording = new RecordingHttpServer(server);
      byte[] response = body.getBytes(StandardCharsets.UTF_8);
      server.createContext(
          "/",
          exchange -> {
            Map<String, String> headers = new HashMap<>();
            exchange
                .getRequestHeaders()
                .forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values.getFirst()));
            recording.requests.add(
                new Request(
                    exchange.getRequestMethod(),
                    exchange.getRequestURI().toString(),
                    headers,
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            exchange.getResponseHeaders().add("Content-Type", contentType);
            exchange.sendResponseHeaders(status, response.length);
            exchange.getResponseBody().write(response);
            exchange.close();
          });
      server.start();
      return recording;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
}
