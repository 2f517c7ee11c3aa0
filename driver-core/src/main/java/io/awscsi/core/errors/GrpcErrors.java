package io.awscsi.core.errors;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/** The one mapping from driver errors to gRPC status codes. No other class chooses a status code. */
public final class GrpcErrors {

  private GrpcErrors() {}

  public static Status toStatus(DriverError error) {
    Status status = switch (error) {
      case DriverError.InvalidArgument e -> Status.INVALID_ARGUMENT.withDescription(e.field() + ": " + e.message());
      case DriverError.NotFound e -> Status.NOT_FOUND.withDescription(e.message());
      case DriverError.AlreadyExists e -> Status.ALREADY_EXISTS.withDescription(e.message());
      case DriverError.FailedPrecondition e -> Status.FAILED_PRECONDITION.withDescription(e.message());
      case DriverError.ResourceExhausted e -> Status.RESOURCE_EXHAUSTED.withDescription(e.message());
      case DriverError.OutOfRange e -> Status.OUT_OF_RANGE.withDescription(e.message());
      case DriverError.Aborted e -> Status.ABORTED.withDescription(e.message());
      case DriverError.Unavailable e -> Status.UNAVAILABLE.withDescription(e.message());
      case DriverError.DeadlineExceeded e -> Status.DEADLINE_EXCEEDED.withDescription(e.message());
      case DriverError.PermissionDenied e -> Status.PERMISSION_DENIED.withDescription(e.message());
      case DriverError.Unimplemented e -> Status.UNIMPLEMENTED.withDescription(e.message());
      case DriverError.Internal e -> Status.INTERNAL.withDescription(e.message());
    };
    return status;
  }

  /**
   * Any throwable from a handler becomes a status without a stack trace on the wire. Unexpected exceptions become
   * INTERNAL with their type and message, so the log line still tells what happened.
   */
  public static StatusRuntimeException toStatusException(Throwable failure) {
    return switch (failure) {
      case DriverException e -> toStatus(e.error()).asRuntimeException();
      case StatusRuntimeException e -> e;
      case InterruptedException e -> Status.ABORTED.withDescription("interrupted: the driver is shutting down")
          .asRuntimeException();
      default -> Status.INTERNAL
          .withDescription("unexpected " + failure.getClass().getSimpleName() + ": " + failure.getMessage())
          .asRuntimeException();
    };
  }
}
