package io.awscsi.realism.proxy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An HTTP request as received from an AWS client, with header names compared case-insensitively. */
public record ProxyRequest(String method, String path, String rawQuery, Map<String, List<String>> headers,
                           byte[] body) {

  private static final Pattern CREDENTIAL_SCOPE =
      Pattern.compile("Credential=([^/,]+)/\\d{8}/([^/,]+)/([^/,]+)/aws4_request");

  public ProxyRequest {
    var copy = new TreeMap<String, List<String>>(String.CASE_INSENSITIVE_ORDER);
    headers.forEach((name, values) -> copy.put(name, List.copyOf(values)));
    headers = copy;
    rawQuery = rawQuery == null ? "" : rawQuery;
  }

  public Optional<String> header(String name) {
    List<String> values = headers.get(name);
    return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.getFirst());
  }

  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  public ProxyRequest withBody(byte[] newBody) {
    return new ProxyRequest(method, path, rawQuery, headers, newBody);
  }

  public ProxyRequest withBody(String newBody) {
    return withBody(newBody.getBytes(StandardCharsets.UTF_8));
  }

  public ProxyRequest withMethodPathQuery(String newMethod, String newPath, String newQuery) {
    return new ProxyRequest(newMethod, newPath, newQuery, headers, new byte[0]);
  }

  /** Region from the SigV4 credential scope; moto keeps one state per region and reads it from there too. */
  public Optional<String> signingRegion() {
    return scope().map(matcher -> matcher.group(2));
  }

  /** Signing name from the SigV4 credential scope: {@code ec2}, {@code elasticfilesystem}, {@code sts}. */
  public Optional<String> signingService() {
    return scope().map(matcher -> matcher.group(3));
  }

  /** The access key id the request was signed with. */
  public Optional<String> accessKeyId() {
    return scope().map(matcher -> matcher.group(1));
  }

  private Optional<Matcher> scope() {
    return header("Authorization").map(CREDENTIAL_SCOPE::matcher).filter(Matcher::find);
  }
}
