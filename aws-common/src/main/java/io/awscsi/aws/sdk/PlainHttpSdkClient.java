package io.awscsi.aws.sdk;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ProtocolException;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * An SDK HTTP client for plain {@code http://} endpoints only, on the JDK's {@link HttpURLConnection}; meant for the
 * SDK's {@code Ec2MetadataClient}, since IMDS is plain HTTP ({@code http://169.254.169.254}, {@code
 * http://[fd00:ec2::254]}).
 *
 * <p>Why not the SDK's {@code UrlConnectionHttpClient}: building one creates an SSLContext and trust managers (the JSSE
 * provider, cacerts), which for one IMDS read in a fresh JVM meant ~440 more classes, ~0.2 s and ~12 MiB RSS, for an
 * endpoint that never uses TLS. This client never touches SSL classes and refuses {@code https}.
 *
 * <p>Each request opens its own connection (the JDK keeps idle HTTP/1.1 connections alive for reuse); {@link #close()}
 * only stops new requests.
 */
public final class PlainHttpSdkClient implements SdkHttpClient {

  private final Timeouts timeouts;
  private volatile boolean closed;

  /**
   * How long to wait for a connection and for each read; zero waits forever, as {@link HttpURLConnection} has it.
   */
  public record Timeouts(Duration connect, Duration read) {

    public Timeouts {
      requireNotNegative(connect, "connect");
      requireNotNegative(read, "read");
    }

    private static void requireNotNegative(Duration timeout, String name) {
      Objects.requireNonNull(timeout, name);
      if (timeout.isNegative()) {
        throw new IllegalArgumentException(name + " timeout must not be negative, was " + timeout);
      }
    }

    /** Milliseconds for {@link HttpURLConnection}, capped at its int range. */
    private static int millis(Duration timeout) {
      return (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    }
  }

  public PlainHttpSdkClient(Timeouts timeouts) {
    this.timeouts = Objects.requireNonNull(timeouts, "timeouts");
  }

  /**
   * @throws IllegalArgumentException for a URI other than {@code http://} (the message names it)
   * @throws IllegalStateException after {@link #close()}
   */
  @Override
  public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
    if (closed) {
      throw new IllegalStateException("PlainHttpSdkClient is closed");
    }
    SdkHttpRequest http = request.httpRequest();
    URI uri = http.getUri();
    // Checked before any connection exists: an https URL would make the JDK load the whole JSSE stack.
    if (!"http".equalsIgnoreCase(uri.getScheme())) {
      throw new IllegalArgumentException(
          "PlainHttpSdkClient sends plain http only, not " + uri + " (IMDS is http://169.254.169.254)");
    }
    HttpURLConnection connection = open(uri);
    connection.setConnectTimeout(Timeouts.millis(timeouts.connect()));
    connection.setReadTimeout(Timeouts.millis(timeouts.read()));
    connection.setInstanceFollowRedirects(false); // the SDK sees every status itself
    try {
      connection.setRequestMethod(http.method().name());
    } catch (ProtocolException e) {
      throw new IllegalArgumentException("HttpURLConnection cannot send " + http.method() + " to " + uri, e);
    }
    // The JDK drops restricted headers (Connection, Host, Content-Length) and sets them itself.
    http.forEachHeader((name, values) -> values.forEach(value -> connection.addRequestProperty(name, value)));
    Optional<ContentStreamProvider> body = request.contentStreamProvider();
    // Without a body no output stream is opened, so a PUT for the IMDS token goes out as the JDK sends an empty PUT.
    connection.setDoOutput(body.isPresent());
    return new Exchange(uri, connection, body.orElse(null));
  }

  @Override
  public String clientName() {
    return "PlainHttp";
  }

  /** Refuses new requests; exchanges already prepared run to their end. */
  @Override
  public void close() {
    closed = true;
  }

  private static HttpURLConnection open(URI uri) {
    try {
      return (HttpURLConnection) uri.toURL().openConnection();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open a connection to " + uri, e);
    }
  }

  /** One request and its response on one connection; {@link #abort()} disconnects it from any thread. */
  private static final class Exchange implements ExecutableHttpRequest {

    private final URI uri;
    private final HttpURLConnection connection;
    private final ContentStreamProvider body;
    private volatile boolean aborted;

    Exchange(URI uri, HttpURLConnection connection, ContentStreamProvider body) {
      this.uri = uri;
      this.connection = connection;
      this.body = body;
    }

    @Override
    public HttpExecuteResponse call() throws IOException {
      try {
        return exchange();
      } catch (RuntimeException e) {
        // HttpURLConnection is not made for a disconnect() from another thread: a read it cuts may fail with an
        // unchecked exception of its internals (a NullPointerException) instead of an IOException.
        if (aborted) {
          throw new IOException("request to " + uri + " was aborted", e);
        }
        throw e;
      }
    }

    private HttpExecuteResponse exchange() throws IOException {
      requireNotAborted();
      connection.connect();
      // disconnect() cannot cut a connect in progress, so an abort that came meanwhile is honoured here.
      requireNotAborted();
      if (body != null) {
        try (InputStream content = body.newStream();
            OutputStream out = connection.getOutputStream()) {
          content.transferTo(out);
        }
      }
      int status = connection.getResponseCode();
      // HttpURLConnection throws from getInputStream() for >= 400; the body of an error is in the error stream.
      InputStream stream = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
      SdkHttpResponse response =
          SdkHttpResponse.builder()
              .statusCode(status)
              .statusText(connection.getResponseMessage())
              .headers(responseHeaders())
              .build();
      return HttpExecuteResponse.builder()
          .response(response)
          .responseBody(AbortableInputStream.create(stream != null ? stream : InputStream.nullInputStream(), this))
          .build();
    }

    @Override
    public void abort() {
      aborted = true;
      connection.disconnect();
    }

    private void requireNotAborted() throws IOException {
      if (aborted) {
        connection.disconnect();
        throw new IOException("request to " + uri + " was aborted");
      }
    }

    /** The response headers without the status line, which HttpURLConnection lists under a null name. */
    private Map<String, List<String>> responseHeaders() {
      Map<String, List<String>> headers = new LinkedHashMap<>();
      connection.getHeaderFields().forEach((name, values) -> {
        if (name != null) {
          headers.put(name, values);
        }
      });
      return headers;
    }
  }
}
