package io.awscsi.realism.proxy;

import io.awscsi.realism.ApiRequest;
import io.awscsi.realism.AwsError;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/** Services the proxy does not make more realistic (STS, IMDS, moto's own API): forwarded as they are. */
public final class PassthroughHandler implements ServiceHandler {

  private static final Pattern XML_CODE = Pattern.compile("<Code>([^<]+)</Code>");
  private static final Pattern JSON_TYPE = Pattern.compile("\"__type\"\\s*:\\s*\"(?:[^\"#]*#)?([^\"]+)\"");

  private final UpstreamClient upstream;

  public PassthroughHandler(UpstreamClient upstream) {
    this.upstream = upstream;
  }

  @Override
  public boolean accepts(ProxyRequest request) {
    return true;
  }

  @Override
  public ApiRequest describe(ProxyRequest request) {
    String service = request.signingService().orElse("other");
    boolean form = request.header("Content-Type").map(type -> type.startsWith("application/x-www-form-urlencoded"))
        .orElse(false);
    QueryParams params = form ? QueryParams.parse(request.bodyText()) : QueryParams.parse(request.rawQuery());
    String action = params.get("Action").orElse(request.method() + " " + request.path());
    return new ApiRequest(service, action, request.method(), request.path(), params.asMap(), request.bodyText());
  }

  @Override
  public ProxyResponse handle(ProxyRequest request, ApiRequest call) {
    return upstream.send(request);
  }

  @Override
  public ProxyResponse render(AwsError error) {
    return ProxyResponse.xml(error.httpStatus(), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ErrorResponse><Error>"
        + "<Type>" + (error.httpStatus() < 500 ? "Sender" : "Receiver") + "</Type><Code>" + Xml.escape(error.code())
        + "</Code><Message>" + Xml.escape(error.message()) + "</Message></Error><RequestId>"
        + UUID.randomUUID() + "</RequestId></ErrorResponse>");
  }

  @Override
  public AwsError throttlingError(ApiRequest call) {
    return AwsError.of(400, "Throttling", "Rate exceeded");
  }

  @Override
  public Optional<String> errorCode(ProxyResponse response) {
    return genericErrorCode(response);
  }

  /** The error code of an XML or JSON AWS error body, or of the {@code x-amzn-ErrorType} header. */
  public static Optional<String> genericErrorCode(ProxyResponse response) {
    Optional<String> header = response.header("x-amzn-ErrorType").map(type -> type.split(":")[0]);
    if (header.isPresent()) {
      return header;
    }
    String body = response.bodyText();
    var xml = XML_CODE.matcher(body);
    if (xml.find()) {
      return Optional.of(xml.group(1));
    }
    var json = JSON_TYPE.matcher(body);
    if (json.find()) {
      return Optional.of(json.group(1));
    }
    return Optional.of("HTTP" + response.status());
  }

  @Override
  public void reset() {
    // nothing emulated here
  }
}
