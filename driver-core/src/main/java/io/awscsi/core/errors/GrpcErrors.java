package io.awscsi.core.errors;

import io.awscsi.core.logging.SecretValues;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;

/** The one mapping from driver errors to gRPC status codes. No other class chooses a status code. */
public final class GrpcErrors {

  /**
   * The most a description may take in the {@code grpc-message} trailer, percent-encoded. Clients refuse trailers
   * over 8 KiB (grpc-go's and grpc-java's default header list limit) and report the whole answer as INTERNAL "http2
   * exception", so a longer description (the output of a host tool, an SDK error quoting a request) is cut here.
   */
  public static final int MAX_DESCRIPTION_BYTES = 4096;
  static final String TRUNCATED = " ... [truncated: %d more characters]";

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
    return sanitized(status);
  }

  /**
   * Any throwable from a handler becomes a status without a stack trace on the wire. Unexpected exceptions become
   * INTERNAL with their type and message, so the log line still tells what happened.
   */
  public static StatusRuntimeException toStatusException(Throwable failure) {
    return switch (failure) {
      case DriverException e -> toStatus(e.error()).asRuntimeException();
      case StatusRuntimeException e -> {
        Status clean = sanitized(e.getStatus());
        yield clean == e.getStatus() ? e : clean.asRuntimeException(e.getTrailers());
      }
      case InterruptedException e -> Status.ABORTED.withDescription("interrupted: the driver is shutting down")
          .asRuntimeException();
      default -> sanitized(Status.INTERNAL
          .withDescription("unexpected " + failure.getClass().getSimpleName() + ": " + failure.getMessage()))
          .asRuntimeException();
    };
  }

  /**
   * {@code status} as it may be answered: remembered secret values masked ({@link SecretValues}) and the description
   * bounded to {@value #MAX_DESCRIPTION_BYTES} bytes on the wire, with a marker saying how much was cut. Idempotent;
   * the same status when nothing needed changing.
   */
  public static Status sanitized(Status status) {
    String description = status.getDescription();
    if (description == null) {
      return status;
    }
    String clean = bounded(SecretValues.redact(description));
    return clean.equals(description) ? status : status.withDescription(clean);
  }

  /** {@code description} cut so that its percent-encoded form fits {@value #MAX_DESCRIPTION_BYTES} bytes. */
  static String bounded(String description) {
    if (encodedSize(description) <= MAX_DESCRIPTION_BYTES) {
      return description;
    }
    int budget = MAX_DESCRIPTION_BYTES - TRUNCATED.length() - 12;
    int used = 0;
    int i = 0;
    while (i < description.length()) {
      int cp = description.codePointAt(i);
      used += encodedSize(cp);
      if (used > budget) {
        break;
      }
      i += Character.charCount(cp);
    }
    return description.substring(0, i) + String.format(TRUNCATED, description.length() - i);
  }

  /** gRPC percent-encodes every byte of the UTF-8 form outside printable ASCII, and '%'. */
  private static int encodedSize(int codePoint) {
    if (codePoint >= 0x20 && codePoint < 0x7f && codePoint != '%') {
      return 1;
    }
    return 3 * new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8).length;
  }

  private static int encodedSize(String s) {
    int total = 0;
    for (int i = 0; i < s.length(); i += Character.charCount(s.codePointAt(i))) {
      total += encodedSize(s.codePointAt(i));
      if (total > MAX_DESCRIPTION_BYTES) {
        return total;
      }
    }
    return total;
  }
}
