package io.awscsi.realism.proxy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** An HTTP response to send back to the client, with header names compared case-insensitively. */
public record ProxyResponse(int status, Map<String, List<String>> headers, byte[] body) {

  public ProxyResponse {
    var copy = new TreeMap<String, List<String>>(String.CASE_INSENSITIVE_ORDER);
    headers.forEach((name, values) -> copy.put(name, List.copyOf(values)));
    headers = copy;
  }

  public static ProxyResponse of(int status, String contentType, String body) {
    return new ProxyResponse(status, Map.of("Content-Type", List.of(contentType)),
        body.getBytes(StandardCharsets.UTF_8));
  }

  public static ProxyResponse xml(int status, String body) {
    return of(status, "text/xml;charset=UTF-8", body);
  }

  public static ProxyResponse json(int status, String body) {
    return of(status, "application/json", body);
  }

  public Optional<String> header(String name) {
    List<String> values = headers.get(name);
    return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.getFirst());
  }

  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  public boolean isError() {
    return status >= 400;
  }

  /** The same response with a rewritten body and the other headers kept. */
  public ProxyResponse withBody(String newBody) {
    return new ProxyResponse(status, headers, newBody.getBytes(StandardCharsets.UTF_8));
  }
}
