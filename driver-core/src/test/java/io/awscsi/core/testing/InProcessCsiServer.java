package io.awscsi.core.testing;

import csi.v1.ControllerGrpc;
import csi.v1.GroupControllerGrpc;
import csi.v1.IdentityGrpc;
import csi.v1.NodeGrpc;
import io.awscsi.core.csi.ControllerService;
import io.awscsi.core.csi.GroupControllerService;
import io.awscsi.core.csi.IdentityService;
import io.awscsi.core.csi.NodeService;
import io.awscsi.core.host.KubeletDirectory;
import io.awscsi.core.inflight.InFlightGuard;
import io.awscsi.core.inflight.InFlightOperations;
import io.awscsi.core.logging.CallRecordingInterceptor;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.DriverProvider;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The CSI services of one driver, wired as {@code DriverRuntime} wires them (one in-flight guard, the call-recording
 * interceptor, handlers on virtual threads), served in-process so tests need no socket. Stubs carry a deadline so a
 * broken test fails instead of hanging.
 */
public final class InProcessCsiServer implements AutoCloseable {

  private static final long DEADLINE_SECONDS = 30;

  private final Server server;
  private final ManagedChannel channel;
  private final ExecutorService handlers;
  private final MetricsRegistry metrics;

  private InProcessCsiServer(Server server, ManagedChannel channel, ExecutorService handlers, MetricsRegistry metrics) {
    this.server = server;
    this.channel = channel;
    this.handlers = handlers;
    this.metrics = metrics;
  }

  public static InProcessCsiServer start(DriverProvider driver) {
    return start(driver, new MetricsRegistry());
  }

  public static InProcessCsiServer start(DriverProvider driver, MetricsRegistry metrics) {
    // The whole tree as the kubelet directory: the node's paths are confined by NodeServiceTest's own server.
    return start(driver, metrics, new KubeletDirectory(Path.of("/")));
  }

  public static InProcessCsiServer start(DriverProvider driver, MetricsRegistry metrics, KubeletDirectory kubelet) {
    String name = InProcessServerBuilder.generateName();
    CallRecordingInterceptor recording = new CallRecordingInterceptor(metrics);
    ExecutorService handlers = Executors.newVirtualThreadPerTaskExecutor();
    InProcessServerBuilder builder = InProcessServerBuilder.forName(name).executor(handlers);
    builder.addService(ServerInterceptors.intercept(new IdentityService(driver), recording));
    driver.controller().ifPresent(c ->
        builder.addService(ServerInterceptors.intercept(new ControllerService(c, new InFlightOperations()), recording)));
    driver.controller().filter(c -> c.groupSnapshots().isPresent()).ifPresent(c ->
        builder.addService(ServerInterceptors.intercept(new GroupControllerService(c, new InFlightGuard()), recording)));
    driver.node().ifPresent(n ->
        builder.addService(ServerInterceptors.intercept(new NodeService(n, new InFlightGuard(), kubelet), recording)));
    Server server;
    try {
      server = builder.build().start();
    } catch (IOException e) {
      handlers.shutdownNow();
      throw new UncheckedIOException(e);
    }
    ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    return new InProcessCsiServer(server, channel, handlers, metrics);
  }

  public IdentityGrpc.IdentityBlockingStub identity() {
    return IdentityGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
  }

  public ControllerGrpc.ControllerBlockingStub controller() {
    return ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
  }

  public ControllerGrpc.ControllerFutureStub controllerAsync() {
    return ControllerGrpc.newFutureStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
  }

  public GroupControllerGrpc.GroupControllerBlockingStub groupController() {
    return GroupControllerGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
  }

  public NodeGrpc.NodeBlockingStub node() {
    return NodeGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
  }

  public NodeGrpc.NodeFutureStub nodeAsync() {
    return NodeGrpc.newFutureStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
  }

  /** The registry the call-recording interceptor counts into. */
  public MetricsRegistry metrics() {
    return metrics;
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
    channel.awaitTermination(5, TimeUnit.SECONDS);
    handlers.shutdownNow();
  }
}
