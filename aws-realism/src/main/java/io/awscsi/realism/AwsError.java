package io.awscsi.realism;

import java.util.Objects;

/**
 * An error answer as AWS gives it: HTTP status, error code and message. The proxy renders it in the service's own
 * format (EC2 XML, EFS JSON with {@code x-amzn-ErrorType}).
 */
public record AwsError(int httpStatus, String code, String message) {

  public AwsError {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(message, "message");
    if (httpStatus < 400 || httpStatus > 599) {
      throw new IllegalArgumentException("an error needs a 4xx or 5xx status, got " + httpStatus);
    }
  }

  public static AwsError of(int httpStatus, String code, String message) {
    return new AwsError(httpStatus, code, message);
  }

  /** A client error (HTTP 400), the usual EC2 answer. */
  public static AwsError badRequest(String code, String message) {
    return new AwsError(400, code, message);
  }
}
