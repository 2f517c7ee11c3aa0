package io.awscsi.realism;

import com.sun.net.httpserver.HttpServer;
import io.awscsi.realism.ec2.Ec2Handler;
import io.awscsi.realism.ec2.Ec2State;
import io.awscsi.realism.efs.EfsHandler;
import io.awscsi.realism.proxy.CallRecorder;
import io.awscsi.realism.proxy.FaultRegistry;
import io.awscsi.realism.proxy.PassthroughHandler;
import io.awscsi.realism.proxy.ProxyRequest;
import io.awscsi.realism.proxy.RealismHttpHandler;
import io.awscsi.realism.proxy.ServiceHandler;
import io.awscsi.realism.proxy.UpstreamClient;
import io.awscsi.realism.throttle.ActionThrottle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * An HTTP proxy on 127.0.0.1 in front of moto's server that makes EC2 and EFS behave like the real services where
 * moto is optimistic: asynchronous states with realistic latency, ClientToken idempotency, paging, per-action
 * throttling, the errors real EC2/EFS return, and fault injection. Point AWS SDK clients at {@link #endpoint()}.
 *
 * <pre>{@code
 * try (var moto = MotoServer.start();
 *      var proxy = RealismProxy.builder().upstream(moto.endpoint()).profile(RealismProfile.fast()).start()) {
 *   Ec2Client ec2 = Ec2Client.builder().endpointOverride(proxy.endpoint())...build();
 * }
 * }</pre>
 */
public final class RealismProxy implements AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(RealismProxy.class);

  private final HttpServer server;
  private final ExecutorService executor;
  private final URI endpoint;
  private final RealismProfile profile;
  private final CallRecorder recorder;
  private final FaultRegistry faults;
  private final ActionThrottle throttle;
  private final Ec2Handler ec2;
  private final EfsHandler efs;
  private final UpstreamClient upstream;

  private RealismProxy(Builder builder) throws IOException {
    this.profile = builder.profile;
    this.upstream = new UpstreamClient(builder.upstream);
    this.recorder = new CallRecorder();
    this.faults = new FaultRegistry();
    this.throttle = new ActionThrottle(profile::throttleOf, builder.clock);
    var random = new Random(builder.seed);
    this.ec2 = new Ec2Handler(upstream, new Ec2State(), builder.clock, random, profile);
    this.efs = new EfsHandler(upstream, profile);
    List<ServiceHandler> handlers = List.of(ec2, efs, new PassthroughHandler(upstream));
    this.executor = Executors.newVirtualThreadPerTaskExecutor();
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), builder.port), 1024);
    server.setExecutor(executor);
    server.createContext("/", new RealismHttpHandler(handlers, throttle, faults, recorder, profile.apiCall(), random,
        this::reset));
    server.start();
    this.endpoint = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    LOG.info("realism proxy listening on {} in front of {}", endpoint, upstream.base());
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The URI to give AWS SDK clients as {@code endpointOverride}. */
  public URI endpoint() {
    return endpoint;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public URI upstream() {
    return upstream.base();
  }

  public RealismProfile profile() {
    return profile;
  }

  /** Calls so far, per service and action (also served as JSON at {@code GET /realism/stats}). */
  public CallStats stats() {
    return recorder.snapshot();
  }

  public void resetStats() {
    recorder.reset();
  }

  /**
   * Starts afresh: resets moto ({@code POST /moto-api/reset}), the emulated states, ClientTokens, token buckets,
   * injected faults and call counts.
   */
  public void reset() {
    var response = upstream.send(new ProxyRequest("POST", "/moto-api/reset", "", Map.of(), new byte[0]));
    if (response.isError()) {
      throw new IllegalStateException("moto at " + upstream.base() + " refused to reset: HTTP " + response.status());
    }
    ec2.reset();
    efs.reset();
    throttle.reset();
    faults.clear();
    recorder.reset();
  }

  /** Answers matching calls with an error until the returned handle is closed (or {@code fault.times()} uses). */
  public InjectedFault injectFault(Fault fault) {
    return faults.add(fault);
  }

  /**
   * Freezes an API: calls of {@code service} ("ec2", "efs") and {@code action} ({@code "*"} for every action) get no
   * answer until the returned handle is closed; then each held call is dropped with a 503 and never reaches moto.
   */
  public InjectedFault freeze(String service, String action) {
    return faults.freeze(service, action);
  }

  /**
   * Stalls an API: calls of {@code service} and {@code action} ({@code "*"}: every action) get no answer for
   * {@code length}, then are served as usual; over HTTP {@code POST /realism/stall}.
   */
  public InjectedFault stall(String service, String action, java.time.Duration length) {
    return faults.stall(service, action, length);
  }

  public void clearFaults() {
    faults.clear();
  }

  /** Keeps attachments of this volume in {@code attaching} (the current one too) until {@link #releaseAttaching}. */
  public void holdAttaching(String volumeId) {
    ec2.holdAttaching(volumeId);
  }

  /** Lets held attachments of this volume complete now. */
  public void releaseAttaching(String volumeId) {
    ec2.releaseAttaching(volumeId);
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    LOG.info("realism proxy on {} stopped", endpoint);
  }

  /** Builder: {@link #upstream} is required; the rest defaults to the system clock, seed 42, fast profile, any port. */
  public static final class Builder {
    private URI upstream;
    private Clock clock = Clock.systemUTC();
    private long seed = 42;
    private RealismProfile profile = RealismProfile.fast();
    private int port;

    private Builder() {}

    /** moto's server, for example {@code MotoServer.endpoint()}. */
    public Builder upstream(URI uri) {
      this.upstream = Objects.requireNonNull(uri, "upstream");
      return this;
    }

    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /** Seed of the latency draws, so a run can be repeated. */
    public Builder seed(long value) {
      this.seed = value;
      return this;
    }

    public Builder profile(RealismProfile value) {
      this.profile = Objects.requireNonNull(value, "profile");
      return this;
    }

    /** Loopback port to listen on; 0 (the default) picks a free one. */
    public Builder port(int value) {
      if (value < 0 || value > 65535) {
        throw new IllegalArgumentException("port must be 0..65535, got " + value);
      }
      this.port = value;
      return this;
    }

    public RealismProxy start() {
      if (upstream == null) {
        throw new IllegalStateException("RealismProxy needs an upstream: builder().upstream(moto.endpoint())");
      }
      try {
        return new RealismProxy(this);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot listen on 127.0.0.1:" + port + " for the realism proxy", e);
      }
    }
  }
}
