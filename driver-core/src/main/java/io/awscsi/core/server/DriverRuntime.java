package io.awscsi.core.server;

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
import io.awscsi.core.provider.Readiness;
import io.grpc.BindableService;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * One driver serving: the CSI services the provider's mode offers on the socket, the optional HTTP endpoint, and the
 * in-process sidecars started on it. Closing it closes the sidecars, shuts the server down gracefully and releases
 * the provider's resources.
 */
public final class DriverRuntime implements AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(DriverRuntime.class);

  private final DriverProvider provider;
  private final CsiServer server;
  private final HttpEndpoint http;
  private final Duration grace;
  private final List<InProcessSidecar> sidecars;

  private DriverRuntime(DriverProvider provider, CsiServer server, HttpEndpoint http, Duration grace,
      List<InProcessSidecar> sidecars) {
    this.provider = provider;
    this.server = server;
    this.http = http;
    this.grace = grace;
    this.sidecars = sidecars;
  }

  /**
   * {@code httpAddress} may be null (no HTTP endpoint); {@code kubelet} is the directory the node's paths must lie
   * below, and may be null only when the provider has no node.
   */
  public static DriverRuntime start(DriverProvider provider, KubeletDirectory kubelet, CsiEndpoint endpoint,
      InetSocketAddress httpAddress, MetricsRegistry metrics, Duration shutdownGrace) throws IOException {
    IdentityService identity = new IdentityService(provider);
    List<BindableService> services = new ArrayList<>();
    services.add(identity);
    // Each service its own table of operations in flight, as upstream: a controller's DeleteVolume does not refuse a
    // node's NodeUnstageVolume of the same volume in a process that serves both.
    provider.controller().ifPresent(c -> services.add(new ControllerService(c, new InFlightOperations())));
    provider.controller().filter(c -> c.groupSnapshots().isPresent())
        .ifPresent(c -> services.add(new GroupControllerService(c, new InFlightGuard())));
    provider.node().ifPresent(n -> services.add(new NodeService(n, new InFlightGuard(),
        Objects.requireNonNull(kubelet, "a node serves below a kubelet directory"))));
    CsiServer server = CsiServer.start(endpoint, services, List.of(new CallRecordingInterceptor(metrics)));
    List<InProcessSidecar> sidecars = new CopyOnWriteArrayList<>();
    HttpEndpoint http = null;
    if (httpAddress != null) {
      try {
        http = HttpEndpoint.start(httpAddress, liveness(identity, server, sidecars),
            readiness(identity, server, sidecars), metrics);
      } catch (IOException e) {
        server.shutdown(Duration.ZERO);
        throw new IOException("cannot serve --http-endpoint " + httpAddress + ": " + e.getMessage(), e);
      }
    }
    LOG.info("serving {} {} on {} (controller={}, node={}){}", provider.driverName(), provider.version(), endpoint,
        provider.controller().isPresent(), provider.node().isPresent(),
        http == null ? "" : ", http on " + http.address());
    return new DriverRuntime(provider, server, http, shutdownGrace, sidecars);
  }

  /** {@code /livez} and {@code /healthz}: the process serves, its CSI socket is in place, so are its sidecars. */
  private static Supplier<Readiness> liveness(IdentityService identity, CsiServer server,
      List<InProcessSidecar> sidecars) {
    return () -> firstNotReady(identity.liveness(), server, sidecars, InProcessSidecar::liveness);
  }

  /** {@code /readyz}: live, the provider ready, and each in-process sidecar ready. */
  private static Supplier<Readiness> readiness(IdentityService identity, CsiServer server,
      List<InProcessSidecar> sidecars) {
    return () -> firstNotReady(identity.readiness(), server, sidecars, InProcessSidecar::readiness);
  }

  private static Readiness firstNotReady(Readiness provider, CsiServer server, List<InProcessSidecar> sidecars,
      Function<InProcessSidecar, Readiness> check) {
    Readiness r = provider instanceof Readiness.Ready ? server.socketReadiness() : provider;
    for (int i = 0; i < sidecars.size() && r instanceof Readiness.Ready; i++) {
      r = check.apply(sidecars.get(i));
    }
    return r;
  }

  /** Starts an in-process sidecar on this runtime's threads; closed (first) when the runtime closes. */
  public InProcessSidecar startSidecar(InProcessSidecar.Factory factory) throws IOException {
    InProcessSidecar sidecar = factory.start(server::serveAlso);
    sidecars.add(sidecar);
    return sidecar;
  }

  public CsiEndpoint endpoint() {
    return server.endpoint();
  }

  public InetSocketAddress httpAddress() {
    return http == null ? null : http.address();
  }

  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  @Override
  public void close() {
    LOG.info("shutting down: no new calls; running calls have {} s to finish", grace.toSeconds());
    // A sidecar's socket goes first, as the sidecar containers' do on SIGTERM (the kubelet deregisters the driver).
    for (InProcessSidecar sidecar : sidecars.reversed()) {
      sidecar.close();
    }
    if (http != null) {
      http.close();
    }
    server.shutdown(grace);
    try {
      provider.resources().close();
    } catch (Exception e) {
      LOG.warn("releasing driver resources failed: {}", e.getMessage());
    }
    LOG.info("stopped; socket {} removed", server.endpoint().socketPath());
  }
}
