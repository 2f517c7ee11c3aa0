package io.awscsi.core.server;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.awscsi.core.provider.Readiness;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * gRPC over a Unix domain socket with native epoll. Handlers run on virtual threads, so blocking AWS calls and host
 * commands do not hold event-loop or platform threads. {@link #shutdown(Duration)} stops accepting calls, lets
 * in-flight calls finish within the grace period, then removes the socket.
 */
public final class CsiServer implements AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(CsiServer.class);

  private final CsiEndpoint endpoint;
  private final Server server;
  private final EventLoopGroup eventLoop;
  private final ExecutorService handlers;
  private final Object socketIdentity;

  private CsiServer(CsiEndpoint endpoint, Server server, EventLoopGroup eventLoop, ExecutorService handlers) {
    this.endpoint = endpoint;
    this.server = server;
    this.eventLoop = eventLoop;
    this.handlers = handlers;
    this.socketIdentity = SocketFile.identity(endpoint.socketPath());
  }

  public static CsiServer start(CsiEndpoint endpoint, List<BindableService> services,
      List<ServerInterceptor> interceptors) throws IOException {
    SocketFile.prepare(endpoint.socketPath());
    // One event-loop thread is plenty for a local socket with a handful of clients (kubelet and sidecars).
    EventLoopGroup eventLoop = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    ExecutorService handlers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("csi-call-", 0).factory());
    Server server;
    try {
      server = serve(endpoint.socketPath(), services, interceptors, eventLoop, handlers);
    } catch (IOException | RuntimeException e) {
      eventLoop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      handlers.shutdownNow();
      throw new IOException("cannot serve on " + endpoint + ": " + e.getMessage(), e);
    }
    return new CsiServer(endpoint, server, eventLoop, handlers);
  }

  private static Server serve(Path socket, List<BindableService> services, List<ServerInterceptor> interceptors,
      EventLoopGroup eventLoop, ExecutorService handlers) throws IOException {
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toFile()))
        .channelType(EpollServerDomainSocketChannel.class)
        .bossEventLoopGroup(eventLoop)
        .workerEventLoopGroup(eventLoop)
        .executor(handlers);
    for (BindableService service : services) {
      builder.addService(ServerInterceptors.intercept(service, interceptors));
    }
    return builder.build().start();
  }

  /**
   * Serves {@code service} on another Unix socket bound at {@code socket}, on this server's event-loop and handler
   * threads (it adds none), without the CSI call interceptors. The caller stops it before this server. Closing it
   * unlinks whatever is at {@code socket} then (Netty does), so a caller that moves the socket elsewhere binds it at a
   * temporary path.
   */
  public Server serveAlso(Path socket, BindableService service) throws IOException {
    return serve(socket, List.of(service), List.of(), eventLoop, handlers);
  }

  /**
   * Not ready once the socket file this server bound is gone or another file took its path (a wiped plugin
   * directory): callers can no longer reach the server, and only a restart binds it again. The livenessprobe
   * sidecar notices the same through its Probe call over the socket.
   */
  public Readiness socketReadiness() {
    if (socketIdentity != null && !Objects.equals(socketIdentity, SocketFile.identity(endpoint.socketPath()))) {
      return new Readiness.NotReady("the CSI socket " + endpoint.socketPath() + " was removed or replaced; nothing"
          + " reaches this process until it is restarted");
    }
    return Readiness.ready();
  }

  public CsiEndpoint endpoint() {
    return endpoint;
  }

  /** Blocks until the server terminates. */
  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /** Stops accepting calls, waits up to {@code grace} for running calls, then cancels the rest. */
  public void shutdown(Duration grace) {
    if (server.isTerminated()) {
      return;
    }
    server.shutdown();
    try {
      if (!server.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("calls still running after the {} s grace period were cancelled", grace.toSeconds());
        server.shutdownNow();
        server.awaitTermination(2, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      handlers.shutdownNow();
      eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
      SocketFile.remove(endpoint.socketPath());
    }
  }

  @Override
  public void close() {
    shutdown(Duration.ofSeconds(5));
  }
}
