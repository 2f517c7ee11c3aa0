package io.awscsi.core.csi;

import io.awscsi.core.errors.GrpcErrors;
import io.grpc.stub.StreamObserver;
import java.util.function.Supplier;

/** Runs one handler body and answers exactly once: the response, or a status without a stack trace. */
final class UnaryCall {

  private UnaryCall() {}

  static <R> void run(StreamObserver<R> observer, Supplier<R> body) {
    R response;
    try {
      response = body.get();
    } catch (Throwable failure) {
      if (failure instanceof VirtualMachineError vme) {
        throw vme;
      }
      // The logging interceptor records the failure with the status; the cause stays in the server log only.
      CallFailures.remember(failure);
      observer.onError(GrpcErrors.toStatusException(failure));
      return;
    }
    observer.onNext(response);
    observer.onCompleted();
  }
}
