package io.awscsi.core.registration;

import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.registration.RegistrationState.Failed;
import io.awscsi.core.registration.RegistrationState.Registered;
import io.awscsi.core.registration.RegistrationState.Waiting;
import io.awscsi.core.server.InProcessSidecar;
import io.awscsi.core.server.SocketFile;
import io.grpc.Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import pluginregistration.RegistrationStatus;

/**
 * The kubelet plugin registration served by the node plugin itself, in place of the node-driver-registrar sidecar.
 * The kubelet's plugin watcher finds {@code <driver>-reg.sock} in its registration directory (when it appears, and at
 * every kubelet start), calls GetInfo, registers the CSI endpoint and reports the outcome with NotifyRegistrationStatus.
 *
 * <p>What the registrar's container restart achieves, done in-process: a socket that disappears (the directory wiped)
 * or is replaced by a stale one is served again; after a failed registration the socket is served anew after a
 * back-off, so the kubelet sees a new plugin and registers from scratch. A socket another live process took over (a
 * newer plugin instance during an update) is left to it. The socket is removed on close, only while it is ours.
 */
public final class KubeletRegistration implements InProcessSidecar {

  private static final Logger LOG = LogManager.getLogger(KubeletRegistration.class);
  private static final long STOP_WAIT_MS = 2_000;

  private final RegistrationSettings settings;
  private final SocketBinder binder;
  private final RegistrationService service;
  private final MetricsRegistry.Counter getInfoCalls;
  private final MetricsRegistry.Counter notifications;
  private final MetricsRegistry.Counter socketsServed;

  // Written by the thread that serves the socket: the start, then the watcher, then close.
  private Server server;
  private Object socketIdentity;
  private Object othersIdentity;

  private volatile RegistrationState state;
  private volatile String socketProblem;
  private volatile Instant retryAt;
  private volatile boolean closed;
  private Duration nextRetryDelay;
  private Thread watcher;

  private KubeletRegistration(RegistrationSettings settings, SocketBinder binder, MetricsRegistry metrics) {
    this.settings = settings;
    this.binder = binder;
    this.service = new RegistrationService(settings, this::onGetInfo, this::onStatus);
    this.nextRetryDelay = settings.retryAfterFailure();
    this.state = new Waiting(Instant.now());
    this.getInfoCalls = metrics.counter("csi_kubelet_registration_get_info_total",
        "GetInfo calls of the kubelet's plugin watcher on the registration socket.");
    this.notifications = metrics.counter("csi_kubelet_registration_notifications_total",
        "Registration outcomes the kubelet reported (NotifyRegistrationStatus).", "registered");
    this.socketsServed = metrics.counter("csi_kubelet_registration_socket_served_total",
        "Times the registration socket was bound, by why: start, removed, stale, registration_failed.", "reason");
    metrics.gauge("csi_kubelet_registration_registered",
        "1 when the kubelet's last report said the driver is registered, else 0.",
        () -> state instanceof Registered ? 1 : 0);
  }

  /** Serves the registration socket (failing with one line saying why) and starts watching it. */
  public static KubeletRegistration start(RegistrationSettings settings, SocketBinder binder, MetricsRegistry metrics)
      throws IOException {
    KubeletRegistration registration = new KubeletRegistration(settings, binder, metrics);
    registration.serve("start");
    registration.watcher = Thread.ofVirtual().name("kubelet-registration").start(registration::watch);
    return registration;
  }

  public RegistrationState state() {
    return state;
  }

  public Path socketPath() {
    return settings.socketPath();
  }

  /**
   * Not live while the socket cannot be served (what fails node-driver-registrar's /healthz, and a restart may
   * mend): the kubelet cannot find the driver then.
   */
  @Override
  public Readiness liveness() {
    String problem = socketProblem;
    return problem == null ? Readiness.ready() : new Readiness.NotReady("kubelet registration: " + problem);
  }

  /**
   * Ready once the kubelet reported the driver registered: not while it has not yet, nor while its last report is a
   * failure (the socket is served anew meanwhile, which is what the registrar's restart after a failure achieves).
   */
  @Override
  public Readiness readiness() {
    Readiness live = liveness();
    if (live instanceof Readiness.NotReady) {
      return live;
    }
    return switch (state) {
      case Registered r -> Readiness.ready();
      case Failed f -> new Readiness.NotReady("kubelet registration failed: " + f.error());
      case Waiting w -> new Readiness.NotReady("the kubelet has not registered " + settings.driverName() + " on "
          + settings.socketPath() + " yet (since " + w.since() + ")");
    };
  }

  private void onGetInfo() {
    getInfoCalls.inc();
    // The kubelet's connection monitor calls GetInfo every 10 s: not worth a line each time at info.
    LOG.debug("GetInfo from the kubelet on {}", settings.socketPath());
  }

  private synchronized void onStatus(RegistrationStatus status) {
    notifications.inc(String.valueOf(status.getPluginRegistered()));
    Instant now = Instant.now();
    if (status.getPluginRegistered()) {
      state = new Registered(now);
      nextRetryDelay = settings.retryAfterFailure();
      retryAt = null;
      LOG.info("kubelet registered {} with CSI endpoint {}", settings.driverName(), settings.kubeletRegistrationPath());
      return;
    }
    Duration delay = nextRetryDelay;
    nextRetryDelay = min(delay.multipliedBy(2), settings.maxRetryAfterFailure());
    state = new Failed(status.getError(), now);
    retryAt = now.plus(delay);
    LOG.error("kubelet registration of {} failed: {}; the registration socket is served anew in {} s",
        settings.driverName(), status.getError(), delay.toSeconds());
    Thread w = watcher;
    if (w != null) {
      LockSupport.unpark(w);
    }
  }

  private void watch() {
    while (!closed) {
      long waitNanos = settings.checkPeriod().toNanos();
      Instant retry = retryAt;
      if (retry != null) {
        waitNanos = Math.min(waitNanos, Math.max(0, Duration.between(Instant.now(), retry).toNanos()));
      }
      LockSupport.parkNanos(this, waitNanos);
      if (closed || Thread.currentThread().isInterrupted()) {
        return;
      }
      check();
    }
  }

  /** One look at the socket: served anew when the kubelet reported a failure, or when it is gone or stale. */
  private void check() {
    Instant retry = retryAt;
    if (retry != null && !Instant.now().isBefore(retry)) {
      retryAt = null;
      serveAgain("registration_failed", "after the failed registration");
      return;
    }
    Path socket = settings.socketPath();
    Object identity = SocketFile.identity(socket);
    if (identity == null) {
      serveAgain("removed", "it was removed");
    } else if (!identity.equals(socketIdentity)) {
      if (!SocketFile.isSocket(socket)) {
        problem(socket + " is no longer a socket; remove it so that the registration socket can be served again");
      } else if (SocketFile.answers(socket)) {
        // Asked again at every check (as the kubelet's monitor does): a process that crashes leaves it stale.
        if (!identity.equals(othersIdentity)) {
          othersIdentity = identity;
          LOG.warn("{} is now served by another process (a newer plugin instance?); leaving it to that process",
              socket);
        }
      } else {
        serveAgain("stale", "a stale socket took its place");
      }
    }
  }

  private void serveAgain(String reason, String why) {
    try {
      serve(reason);
      LOG.warn("registration socket {} served again: {}", settings.socketPath(), why);
    } catch (IOException e) {
      problem(e.getMessage());
    }
  }

  private void problem(String problem) {
    if (!problem.equals(socketProblem)) {
      LOG.error("kubelet registration: {}", problem);
    }
    socketProblem = problem;
  }

  /** Binds a new socket beside the final path, then renames it into place: the kubelet sees one whole socket. */
  private void serve(String reason) throws IOException {
    Path socket = settings.socketPath();
    Path bind = settings.bindPath();
    try {
      Files.createDirectories(settings.pluginRegistrationDir());
    } catch (IOException e) {
      throw new IOException("cannot create the plugin registration directory " + settings.pluginRegistrationDir()
          + ": " + e.getMessage(), e);
    }
    if (Files.exists(socket, LinkOption.NOFOLLOW_LINKS) && !SocketFile.isSocket(socket)) {
      throw new IOException(socket + " exists and is not a socket; remove it or choose another"
          + " --plugin-registration-path");
    }
    SocketFile.remove(bind);
    Server fresh;
    try {
      fresh = binder.bind(bind, service);
    } catch (IOException | RuntimeException e) {
      throw new IOException("cannot serve the registration socket " + socket + ": " + e.getMessage(), e);
    }
    try {
      // As the registrar's umask 0077: only the kubelet (root) connects.
      Files.setPosixFilePermissions(bind, PosixFilePermissions.fromString("rw-------"));
      Files.move(bind, socket, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      stop(fresh);
      SocketFile.remove(bind);
      throw new IOException("cannot serve the registration socket " + socket + ": " + e.getMessage(), e);
    }
    socketsServed.inc(reason);
    Server previous = server;
    server = fresh;
    socketIdentity = SocketFile.identity(socket);
    othersIdentity = null;
    socketProblem = null;
    if (!(state instanceof Failed)) {
      // A new socket is a new plugin to the kubelet: any earlier registration was undone when the old one went.
      state = new Waiting(Instant.now());
    }
    if (previous != null) {
      stop(previous);
    }
    if (reason.equals("start")) {
      LOG.info("serving the kubelet plugin registration on {}: {} at {} (versions {})", socket,
          settings.driverName(), settings.kubeletRegistrationPath(), RegistrationSettings.SUPPORTED_VERSIONS);
    }
  }

  /**
   * Stops a server and waits for it: Netty unlinks the path it bound (the temporary one, renamed away) when its
   * channel closes, which must not happen once a newer socket is bound there.
   */
  private static void stop(Server s) {
    s.shutdownNow();
    try {
      s.awaitTermination(STOP_WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** Removes the registration socket if it is still this process's (the kubelet deregisters the driver), then stops. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    Thread w = watcher;
    if (w != null) {
      w.interrupt();
      try {
        w.join(STOP_WAIT_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Path socket = settings.socketPath();
    boolean ours = socketIdentity != null && Objects.equals(socketIdentity, SocketFile.identity(socket));
    if (ours) {
      SocketFile.remove(socket);
    }
    if (server != null) {
      stop(server);
    }
    LOG.info(ours ? "registration socket {} removed" : "registration socket {} left as it is (not this process's)",
        socket);
  }
}
