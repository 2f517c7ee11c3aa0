package io.awscsi.realism.proxy;

import io.awscsi.realism.AwsError;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Forwards requests to the emulated service (moto's server) unchanged except for hop-by-hop headers. */
public final class UpstreamClient {

  /** Headers the JDK client sets itself or refuses, and those describing the old body. */
  private static final Set<String> SKIPPED_REQUEST_HEADERS =
      Set.of("connection", "content-length", "expect", "host", "upgrade", "transfer-encoding", "keep-alive",
          "te", "trailer", "proxy-connection");
  private static final Set<String> SKIPPED_RESPONSE_HEADERS =
      Set.of("connection", "content-length", "transfer-encoding", "date", "keep-alive", "server", "status");

  private final URI base;
  private final HttpClient client;

  public UpstreamClient(URI base) {
    String text = base.toString();
    this.base = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    this.client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  public URI base() {
    return base;
  }

  public ProxyResponse send(ProxyRequest request) {
    String target = base + request.path() + (request.rawQuery().isEmpty() ? "" : "?" + request.rawQuery());
    var builder = HttpRequest.newBuilder(URI.create(target))
        .timeout(Duration.ofSeconds(60))
        .method(request.method(), request.body().length == 0 && !hasBodyMethod(request.method())
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(request.body()));
    request.headers().forEach((name, values) -> {
      if (!SKIPPED_REQUEST_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
        values.forEach(value -> builder.header(name, value));
      }
    });
    try {
      HttpResponse<byte[]> response = client.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
      Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
      response.headers().map().forEach((name, values) -> {
        if (!name.startsWith(":") && !SKIPPED_RESPONSE_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
          headers.put(name, new ArrayList<>(values));
        }
      });
      return new ProxyResponse(response.statusCode(), headers, response.body());
    } catch (IOException e) {
      throw new AwsErrorException(AwsError.of(503, "Unavailable",
          "the emulated service at " + base + " did not answer (" + e.getMessage() + "); is moto running?"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AwsErrorException(AwsError.of(503, "Unavailable", "interrupted while calling " + base));
    }
  }

  private static boolean hasBodyMethod(String method) {
    return method.equals("POST") || method.equals("PUT") || method.equals("PATCH");
  }
}
