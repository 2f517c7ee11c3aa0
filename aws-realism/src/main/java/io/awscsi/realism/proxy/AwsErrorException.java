package io.awscsi.realism.proxy;

import io.awscsi.realism.AwsError;

/** Thrown by a service handler to answer the call with an AWS error in the service's format. */
public final class AwsErrorException extends RuntimeException {

  private final transient AwsError error;

  public AwsErrorException(AwsError error) {
    super(error.code() + ": " + error.message(), null, false, false);
    this.error = error;
  }

  public static AwsErrorException badRequest(String code, String message) {
    return new AwsErrorException(AwsError.badRequest(code, message));
  }

  public AwsError error() {
    return error;
  }
}
