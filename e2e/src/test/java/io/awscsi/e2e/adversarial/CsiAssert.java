package io.awscsi.e2e.adversarial;

import static org.assertj.core.api.Assertions.catchThrowable;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.Callable;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * Assertions on a CSI call's answer: refused with the spec's code and a description naming the field, or answered OK.
 * INTERNAL fails at once whatever was expected (it is for the driver's own bugs, never for a caller's input).
 */
public final class CsiAssert {

  private CsiAssert() {}

  /** The call fails with {@code code} and its description names {@code field}; returns the status. */
  public static Status refused(Status.Code code, String field, ThrowingCallable call) {
    Status status = refused(code, call);
    String description = status.getDescription() == null ? "" : status.getDescription();
    if (!description.contains(field)) {
      throw new AssertionError("expected the description of " + code + " to name " + field + ", got: "
          + description);
    }
    return status;
  }

  /** The call fails with {@code code}; returns the status. */
  public static Status refused(Status.Code code, ThrowingCallable call) {
    Throwable failure = catchThrowable(call);
    if (failure == null) {
      throw new AssertionError("expected " + code + ", but the call succeeded");
    }
    if (!(failure instanceof StatusRuntimeException sre)) {
      throw new AssertionError("expected " + code + ", but the call threw " + failure, failure);
    }
    Status status = sre.getStatus();
    failOnInternal(status);
    if (status.getCode() != code) {
      throw new AssertionError("expected " + code + ", got " + status.getCode() + ": " + status.getDescription(),
          sre);
    }
    return status;
  }

  /** The call answers OK; a status fails the test naming it. */
  public static <T> T ok(Callable<T> call) {
    try {
      return call.call();
    } catch (StatusRuntimeException e) {
      failOnInternal(e.getStatus());
      throw new AssertionError("expected OK, got " + e.getStatus().getCode() + ": " + e.getStatus().getDescription(),
          e);
    } catch (Exception e) {
      throw new AssertionError("expected OK, the call threw " + e, e);
    }
  }

  private static void failOnInternal(Status status) {
    if (status.getCode() == Status.Code.INTERNAL) {
      throw new AssertionError("the driver answered INTERNAL (only its own bugs may): " + status.getDescription());
    }
  }
}
