package io.awscsi.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** The status a CSI call failed with; fails the test when the call succeeds or fails some other way. */
public final class FailedCall {

  private FailedCall() {}

  public static Status statusOf(ThrowingCallable call) {
    Throwable failure = catchThrowable(call);
    assertThat(failure).as("the call should fail with a gRPC status").isInstanceOf(StatusRuntimeException.class);
    return ((StatusRuntimeException) failure).getStatus();
  }
}
