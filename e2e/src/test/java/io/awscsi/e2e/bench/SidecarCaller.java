package io.awscsi.e2e.bench;

import csi.v1.ControllerGrpc;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * One work queue of a sidecar: at most {@code workers} calls at once (the sidecar's {@code --worker-threads}), each
 * with the sidecar's {@code --timeout} as its gRPC deadline; an answer other than OK is repeated for the same item
 * after the per-item exponential backoff, with the worker free in between, until OK or the run's end. Records every
 * answer's latency by CSI method and status code.
 */
final class SidecarCaller {

  /** Latencies and outcomes of one CSI method's calls. */
  static final class MethodStats {
    final ConcurrentLinkedQueue<Long> okNanos = new ConcurrentLinkedQueue<>();
    final Map<Status.Code, LongAdder> failures = new ConcurrentHashMap<>();
    final ConcurrentLinkedQueue<String> failureSamples = new ConcurrentLinkedQueue<>();

    List<Long> sortedOk() {
      List<Long> values = new ArrayList<>(okNanos);
      Collections.sort(values);
      return values;
    }

    long failed() {
      return failures.values().stream().mapToLong(LongAdder::sum).sum();
    }

    Map<String, Long> failuresByCode() {
      Map<String, Long> out = new TreeMap<>();
      failures.forEach((code, n) -> out.put(code.name(), n.sum()));
      return out;
    }
  }

  /** The run ended (its time bound passed) before the call succeeded. */
  static final class GaveUp extends RuntimeException {
    GaveUp(String what) {
      super(what);
    }
  }

  private final ChartRender.Sidecar settings;
  private final ControllerGrpc.ControllerBlockingStub stub;
  private final Semaphore workers;
  private final Map<String, MethodStats> stats;
  private final long giveUpAtNanos;

  SidecarCaller(ChartRender.Sidecar settings, Channel channel, Map<String, MethodStats> stats, long giveUpAtNanos) {
    this.settings = settings;
    this.stub = ControllerGrpc.newBlockingStub(channel);
    this.workers = new Semaphore(settings.workers(), true);
    this.stats = stats;
    this.giveUpAtNanos = giveUpAtNanos;
  }

  /** Calls {@code method} until it answers OK. */
  <T> T call(String method, String item, Function<ControllerGrpc.ControllerBlockingStub, T> rpc) {
    MethodStats s = stats.computeIfAbsent(method, k -> new MethodStats());
    for (int failures = 0; ; ) {
      if (System.nanoTime() > giveUpAtNanos) {
        throw new GaveUp(method + " " + item + ": no OK answer before the run's time bound (" + failures
            + " failed answers)");
      }
      try {
        workers.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new GaveUp(method + " " + item + ": interrupted");
      }
      long start = System.nanoTime();
      Status status;
      T answer = null;
      try {
        answer = rpc.apply(stub.withDeadlineAfter(settings.timeout().toMillis(), TimeUnit.MILLISECONDS));
        status = Status.OK;
      } catch (StatusRuntimeException e) {
        status = e.getStatus();
      } finally {
        workers.release();
      }
      long took = System.nanoTime() - start;
      if (status.isOk()) {
        s.okNanos.add(took);
        return answer;
      }
      failures++;
      s.failures.computeIfAbsent(status.getCode(), k -> new LongAdder()).increment();
      if (s.failureSamples.size() < 5) {
        s.failureSamples.add(item + ": " + status.getCode() + " " + status.getDescription());
      }
      sleep(settings.backoff(failures));
    }
  }

  private static void sleep(Duration pause) {
    try {
      Thread.sleep(pause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GaveUp("interrupted");
    }
  }
}
