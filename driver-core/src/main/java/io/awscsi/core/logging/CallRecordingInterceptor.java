package io.awscsi.core.logging;

import com.google.protobuf.MessageLite;
import io.awscsi.core.csi.CallFailures;
import io.awscsi.core.errors.GrpcErrors;
import io.awscsi.core.metrics.MetricsRegistry;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.ThreadContext;

/**
 * One log line per CSI call (method, volume and node ids, duration, outcome) plus a counter and a latency histogram
 * per method and gRPC code. Request and response bodies are logged at debug level, redacted.
 */
public final class CallRecordingInterceptor implements ServerInterceptor {

  private static final Logger LOG = LogManager.getLogger(CallLogLine.LOGGER);
  /** The counter of CSI calls served (method, grpc_code). */
  public static final String CALLS_METRIC = "csi_operations_total";

  private final MetricsRegistry.Counter calls;
  private final MetricsRegistry.Histogram latency;

  public CallRecordingInterceptor(MetricsRegistry metrics) {
    this.calls = metrics.counter(CALLS_METRIC, "CSI calls served, by method and gRPC code",
        "method", "grpc_code");
    this.latency = metrics.histogram("csi_operation_duration_seconds", "CSI call latency, by method and gRPC code",
        MetricsRegistry.LATENCY_BUCKETS, "method", "grpc_code");
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    String method = call.getMethodDescriptor().getBareMethodName();
    long start = System.nanoTime();
    CallState state = new CallState();
    ServerCall<Q, R> recording = new SimpleForwardingServerCall<>(call) {
      @Override
      public void sendMessage(R message) {
        if (LOG.isDebugEnabled() && message instanceof MessageLite m) {
          state.response = RequestRedactor.render(m);
        }
        super.sendMessage(message);
      }

      @Override
      public void close(Status answered, Metadata trailers) {
        // Every answer leaves here: statuses made outside GrpcErrors (gRPC's own, an interceptor's) are bounded and
        // cleared of secrets too.
        Status status = GrpcErrors.sanitized(answered);
        if (!status.isOk()) {
          // The handler answers from inside onHalfClose on this thread, so its cause is waiting here already.
          state.failure = CallFailures.take();
        }
        record(method, state, status, System.nanoTime() - start);
        super.close(status, trailers);
      }
    };
    return new SimpleForwardingServerCallListener<>(next.startCall(recording, headers)) {
      @Override
      public void onMessage(Q message) {
        // First, so that nothing the handler or a thread it starts writes can carry a value of these secrets.
        SecretValues.rememberFrom(message);
        CallIds ids = CallIds.of(message);
        state.volumeId = ids.volumeId();
        state.nodeId = ids.nodeId();
        state.name = ids.name();
        if (message instanceof MessageLite m && LOG.isDebugEnabled()) {
          LOG.debug("{}: request {}", method, RequestRedactor.render(m));
        }
        super.onMessage(message);
      }

      @Override
      public void onHalfClose() {
        try {
          super.onHalfClose();
        } finally {
          // Clears a cause the handler remembered but close() did not take, so it cannot leak into the next call.
          CallFailures.take();
        }
      }
    };
  }

  private static final class CallState {
    volatile String volumeId = "";
    volatile String nodeId = "";
    volatile String name = "";
    volatile String response;
    volatile Throwable failure;
  }

  private void record(String method, CallState state, Status status, long nanos) {
    double seconds = nanos / 1e9;
    String code = status.getCode().name();
    calls.inc(method, code);
    latency.observe(seconds, method, code);
    // Probe and capability calls arrive every few seconds from sidecars: keep them out of the info log when OK.
    boolean routine = status.isOk() && (method.equals("Probe") || method.endsWith("GetCapabilities")
        || method.equals("GetPluginInfo"));
    Level level = status.isOk() ? (routine ? Level.DEBUG : Level.INFO)
        : status.getCode() == Status.Code.INTERNAL || status.getCode() == Status.Code.UNKNOWN ? Level.ERROR
        : Level.WARN;
    if (!LOG.isEnabled(level)) {
      return;
    }
    ThreadContext.put("rpc", method);
    ThreadContext.put("volumeId", state.volumeId);
    ThreadContext.put("nodeId", state.nodeId);
    ThreadContext.put("durationMs", Long.toString(nanos / 1_000_000));
    ThreadContext.put("grpcCode", code);
    try {
      String line = CallLogLine.message(method, state.volumeId, state.name, state.nodeId, nanos / 1_000_000, code,
          status.getDescription(), state.response);
      Throwable failure = state.failure;
      if (failure != null && level == Level.ERROR) {
        LOG.log(level, line, failure);
      } else {
        LOG.log(level, line);
      }
    } finally {
      ThreadContext.removeAll(java.util.List.of("rpc", "volumeId", "nodeId", "durationMs", "grpcCode"));
    }
  }
}
