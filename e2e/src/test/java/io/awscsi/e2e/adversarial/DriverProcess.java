package io.awscsi.e2e.adversarial;

import csi.v1.ControllerGrpc;
import csi.v1.IdentityGrpc;
import csi.v1.NodeGrpc;
import csi.v1.ProbeRequest;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * One driver process started from the built distribution ({@code bin/aws-csi-driver}) on its own Unix socket, its
 * output appended to one log file across restarts. Stubs are made per call, each with a fresh deadline. Every INTERNAL
 * answer is recorded: {@link DriverFixture} fails the test that got one (INTERNAL is for the driver's own bugs only).
 */
public final class DriverProcess {

  /** How long a start may take until the first ready Probe. */
  static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  /** The deadline of a stub from {@link #node()}, {@link #controller()}, {@link #identity()}. */
  static final Duration CALL_DEADLINE = Duration.ofSeconds(90);

  private final String name;
  private final List<String> command;
  private final Map<String, String> environment;
  private final Path socket;
  private final Path log;
  private final List<String> internalAnswers = new CopyOnWriteArrayList<>();
  private Process process;
  private ManagedChannel channel;
  private Channel intercepted;

  DriverProcess(String name, List<String> command, Map<String, String> environment, Path socket, Path log) {
    this.name = name;
    this.command = List.copyOf(command);
    this.environment = Map.copyOf(environment);
    this.socket = socket;
    this.log = log;
  }

  /** Starts the process and waits until its socket answers a ready Probe; fails with the log if it does not. */
  public synchronized DriverProcess start() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(name + " is already running (pid " + process.pid() + ")");
    }
    closeChannel();
    mark("starting: " + String.join(" ", command));
    try {
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
      pb.environment().putAll(environment);
      process = pb.start();
    } catch (IOException e) {
      throw new AssertionError("cannot start " + name + ": " + e.getMessage(), e);
    }
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new AssertionError(name + " exited with " + process.exitValue() + " before it was ready:\n"
            + logTail(40));
      }
      if (Files.exists(socket) && probe()) {
        return this;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(name + " was not ready within " + START_TIMEOUT + ":\n" + logTail(40));
      }
      sleep(50);
    }
  }

  /**
   * SIGTERM, as kubelet stops a container: waits (bounded) for the exit and returns its code (143 is the JVM's exit
   * on SIGTERM once its shutdown hooks have run).
   */
  public synchronized int sigterm(Duration wait) {
    return stop(false, wait);
  }

  /** SIGKILL: no shutdown hook runs, as when the node plugin's container is killed. Returns the exit code. */
  public synchronized int sigkill() {
    return stop(true, Duration.ofSeconds(30));
  }

  /** SIGTERM then start, waiting for ready. */
  public DriverProcess restart() {
    sigterm(Duration.ofSeconds(60));
    return start();
  }

  private int stop(boolean kill, Duration wait) {
    if (process == null) {
      throw new IllegalStateException(name + " was never started");
    }
    closeChannel();
    mark(kill ? "SIGKILL" : "SIGTERM");
    if (kill) {
      process.destroyForcibly();
    } else {
      process.destroy();
    }
    try {
      if (!process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        throw new AssertionError(name + " did not exit within " + wait + " of " + (kill ? "SIGKILL" : "SIGTERM")
            + ":\n" + logTail(40));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while stopping " + name, e);
    }
    int code = process.exitValue();
    mark("exited with " + code);
    return code;
  }

  public synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  public synchronized long pid() {
    return process.pid();
  }

  public String name() {
    return name;
  }

  public Path socket() {
    return socket;
  }

  public Path logFile() {
    return log;
  }

  /** A Node stub with a fresh {@link #CALL_DEADLINE}. */
  public NodeGrpc.NodeBlockingStub node() {
    return NodeGrpc.newBlockingStub(channel()).withDeadlineAfter(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A Controller stub with a fresh {@link #CALL_DEADLINE}. */
  public ControllerGrpc.ControllerBlockingStub controller() {
    return ControllerGrpc.newBlockingStub(channel())
        .withDeadlineAfter(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** An Identity stub with a fresh {@link #CALL_DEADLINE}. */
  public IdentityGrpc.IdentityBlockingStub identity() {
    return IdentityGrpc.newBlockingStub(channel()).withDeadlineAfter(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The channel to the socket, with the INTERNAL recorder; reopened after a restart. */
  public synchronized Channel channel() {
    if (channel == null) {
      channel = Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create()).build();
      intercepted = ClientInterceptors.intercept(channel, new InternalRecorder());
    }
    return intercepted;
  }

  /** The INTERNAL answers since the last call, as {@code method: description}; clears the record. */
  List<String> takeInternalAnswers() {
    List<String> out = new ArrayList<>(internalAnswers);
    internalAnswers.removeAll(out);
    return out;
  }

  /** The whole log (every start of this process). */
  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** The log's size, to read what was written after this point with {@link #logSince}. */
  public long logSize() {
    try {
      return Files.size(log);
    } catch (IOException e) {
      return 0;
    }
  }

  /** What the process wrote after {@code offset} (a {@link #logSize} taken earlier). */
  public String logSince(long offset) {
    String all = log();
    byte[] bytes = all.getBytes(StandardCharsets.UTF_8);
    return offset >= bytes.length ? "" : new String(bytes, (int) offset, bytes.length - (int) offset,
        StandardCharsets.UTF_8);
  }

  public String logTail(int lines) {
    List<String> all = log().lines().toList();
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  /** Stops whatever is still running (SIGTERM, then SIGKILL) and closes the channel; for the fixture's clean-up. */
  synchronized void destroy() {
    closeChannel();
    if (process != null && process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(40, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          process.waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private boolean probe() {
    try {
      ManagedChannel probeChannel = Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create())
          .build();
      try {
        return IdentityGrpc.newBlockingStub(probeChannel).withDeadlineAfter(2, TimeUnit.SECONDS)
            .probe(ProbeRequest.getDefaultInstance()).getReady().getValue();
      } finally {
        probeChannel.shutdownNow();
      }
    } catch (StatusRuntimeException e) {
      return false;
    }
  }

  private void closeChannel() {
    if (channel != null) {
      channel.shutdownNow();
      try {
        channel.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      channel = null;
      intercepted = null;
    }
  }

  private void mark(String event) {
    try {
      Files.writeString(log, "=== fixture: " + name + " " + event + "\n", StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      // The log only helps a failure report; a start or stop does not depend on it.
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** Records every INTERNAL status an RPC on this channel answered. */
  private final class InternalRecorder implements ClientInterceptor {
    @Override
    public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<A> listener, Metadata headers) {
          super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
            @Override
            public void onClose(Status status, Metadata trailers) {
              if (status.getCode() == Status.Code.INTERNAL) {
                internalAnswers.add(method.getBareMethodName() + ": " + status.getDescription());
              }
              super.onClose(status, trailers);
            }
          }, headers);
        }
      };
    }
  }
}
