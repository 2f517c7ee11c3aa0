package io.awscsi.core.errors;

/** Carries a {@link DriverError} through provider code; the only exception a provider should let escape. */
public final class DriverException extends RuntimeException {

  private final transient DriverError error;

  public DriverException(DriverError error) {
    super(error.message());
    this.error = error;
  }

  public DriverException(DriverError error, Throwable cause) {
    super(error.message(), cause);
    this.error = error;
  }

  public DriverError error() {
    return error;
  }

  public static DriverException invalidArgument(String field, String message) {
    return new DriverException(new DriverError.InvalidArgument(field, message));
  }

  public static DriverException notFound(String message) {
    return new DriverException(new DriverError.NotFound(message));
  }

  public static DriverException alreadyExists(String message) {
    return new DriverException(new DriverError.AlreadyExists(message));
  }

  public static DriverException failedPrecondition(String message) {
    return new DriverException(new DriverError.FailedPrecondition(message));
  }

  public static DriverException resourceExhausted(String message) {
    return new DriverException(new DriverError.ResourceExhausted(message));
  }

  public static DriverException outOfRange(String message) {
    return new DriverException(new DriverError.OutOfRange(message));
  }

  public static DriverException aborted(String message) {
    return new DriverException(new DriverError.Aborted(message));
  }

  public static DriverException unavailable(String message) {
    return new DriverException(new DriverError.Unavailable(message));
  }

  public static DriverException unavailable(String message, Throwable cause) {
    return new DriverException(new DriverError.Unavailable(message), cause);
  }

  public static DriverException deadlineExceeded(String message) {
    return new DriverException(new DriverError.DeadlineExceeded(message));
  }

  public static DriverException permissionDenied(String message) {
    return new DriverException(new DriverError.PermissionDenied(message));
  }

  public static DriverException internal(String message) {
    return new DriverException(new DriverError.Internal(message));
  }

  public static DriverException internal(String message, Throwable cause) {
    return new DriverException(new DriverError.Internal(message), cause);
  }
}
