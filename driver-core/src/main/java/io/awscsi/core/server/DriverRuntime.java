package io.awscsi.core.server;

import io.awscsi.core.csi.ControllerService;
import io.awscsi.core.csi.IdentityService;
import io.awscsi.core.csi.NodeService;
import io.awscsi.core.inflight.InFlightGuard;
import io.awscsi.core.logging.CallRecordingInterceptor;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.DriverProvider;
import io.grpc.BindableService;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * One driver serving: the CSI services the provider's mode offers on the socket, and the optional HTTP endpoint.
 * Closing it shuts the server down gracefully and releases the provider's resources.
 */
public final class DriverRuntime implements AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(DriverRuntime.class);

  private final DriverProvider provider;
  private final CsiServer server;
  private final HttpEndpoint http;
  private final Duration grace;

  private DriverRuntime(DriverProvider provider, CsiServer server, HttpEndpoint http, Duration grace) {
    this.provider = provider;
    this.server = server;
    this.http = http;
    this.grace = grace;
  }

  /** {@code httpAddress} may be null (no HTTP endpoint). */
  public static DriverRuntime start(DriverProvider provider, CsiEndpoint endpoint, InetSocketAddress httpAddress,
      MetricsRegistry metrics, Duration shutdownGrace) throws IOException {
    InFlightGuard inFlight = new InFlightGuard();
    IdentityService identity = new IdentityService(provider);
    List<BindableService> services = new ArrayList<>();
    services.add(identity);
    provider.controller().ifPresent(c -> services.add(new ControllerService(c, inFlight)));
    provider.node().ifPresent(n -> services.add(new NodeService(n, inFlight)));
    CsiServer server = CsiServer.start(endpoint, services, List.of(new CallRecordingInterceptor(metrics)));
    HttpEndpoint http = null;
    if (httpAddress != null) {
      try {
        http = HttpEndpoint.start(httpAddress, identity::liveness, identity::readiness, metrics);
      } catch (IOException e) {
        server.shutdown(Duration.ZERO);
        throw new IOException("cannot serve --http-endpoint " + httpAddress + ": " + e.getMessage(), e);
      }
    }
    LOG.info("serving {} {} on {} (controller={}, node={}){}", provider.driverName(), provider.version(), endpoint,
        provider.controller().isPresent(), provider.node().isPresent(),
        http == null ? "" : ", http on " + http.address());
    return new DriverRuntime(provider, server, http, shutdownGrace);
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
