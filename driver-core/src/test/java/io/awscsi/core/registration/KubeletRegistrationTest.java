package io.awscsi.core.registration;

import io.awscsi.core.host.KubeletDirectory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.logging.backend.LogRecord;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.server.CsiEndpoint;
import io.awscsi.core.server.DriverRuntime;
import io.awscsi.core.server.SocketFile;
import io.awscsi.core.testing.FakeDriver;
import io.awscsi.core.testing.FakeNodeProvider;
import io.awscsi.core.testing.LogCapture;
import io.awscsi.core.testing.UnixSocketChannels;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pluginregistration.InfoRequest;
import pluginregistration.PluginInfo;
import pluginregistration.RegistrationGrpc;
import pluginregistration.RegistrationStatus;

/**
 * The registration socket of a serving node plugin, with the test in the kubelet's place: its plugin watcher's calls
 * (GetInfo, then NotifyRegistrationStatus) over the Unix socket, what it would find in the directory, and what
 * {@code /readyz}, {@code /livez} and {@code /metrics} say meanwhile.
 */
class KubeletRegistrationTest {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String KUBELET_PATH = "/var/lib/kubelet/plugins/" + FakeDriver.NAME + "/csi.sock";

  @TempDir
  Path dir;

  private Path registry;
  private DriverRuntime runtime;
  private KubeletRegistration registration;
  private HttpClient http;
  private LogCapture log;

  @BeforeEach
  void serve() throws IOException {
    log = LogCapture.start(Level.INFO);
    registry = dir.resolve("plugins_registry");
    runtime = DriverRuntime.start(FakeDriver.nodeMode(new FakeNodeProvider()), new KubeletDirectory(Path.of("/")),
        new CsiEndpoint(dir.resolve("csi.sock")), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
        new MetricsRegistry(), Duration.ofSeconds(1));
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  }

  @AfterEach
  void stop() {
    http.close();
    runtime.close();
    log.close();
  }

  private KubeletRegistration startRegistration(MetricsRegistry metrics) throws IOException {
    RegistrationSettings settings = new RegistrationSettings(FakeDriver.NAME, KUBELET_PATH, registry,
        Duration.ofMillis(50), Duration.ofMillis(300), Duration.ofSeconds(2));
    registration = (KubeletRegistration) runtime.startSidecar(binder ->
        KubeletRegistration.start(settings, binder, metrics));
    return registration;
  }

  private KubeletRegistration startRegistration() throws IOException {
    return startRegistration(new MetricsRegistry());
  }

  private Path socket() {
    return registry.resolve(FakeDriver.NAME + "-reg.sock");
  }

  /** What the kubelet's plugin watcher does with a socket it found: GetInfo, then the outcome of its registration. */
  private static PluginInfo kubeletRegisters(Path socket, boolean registered, String error)
      throws InterruptedException {
    ManagedChannel channel = UnixSocketChannels.open(socket);
    try {
      var stub = RegistrationGrpc.newBlockingStub(channel);
      PluginInfo info = stub.withDeadlineAfter(5, TimeUnit.SECONDS).getInfo(InfoRequest.getDefaultInstance());
      stub.withDeadlineAfter(5, TimeUnit.SECONDS).notifyRegistrationStatus(
          RegistrationStatus.newBuilder().setPluginRegistered(registered).setError(error).build());
      return info;
    } finally {
      UnixSocketChannels.close(channel);
    }
  }

  private static PluginInfo getInfo(Path socket) throws InterruptedException {
    ManagedChannel channel = UnixSocketChannels.open(socket);
    try {
      return RegistrationGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
          .getInfo(InfoRequest.getDefaultInstance());
    } finally {
      UnixSocketChannels.close(channel);
    }
  }

  private HttpResponse<String> get(String path) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + runtime.httpAddress().getPort() + path);
    return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private List<String> logLines() {
    return log.events().stream().filter(r -> r.loggerName().equals(KubeletRegistration.class.getName()))
        .map(r -> r.level() + " " + r.message()).toList();
  }

  private void await(String what, BooleanSupplier condition, Supplier<String> diagnostics)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + WAIT.toSeconds() + " s: " + what + "; " + diagnostics.get());
      }
      Thread.sleep(20);
    }
  }

  private String dirListing() {
    try (Stream<Path> files = Files.exists(registry) ? Files.list(registry) : Stream.empty()) {
      return "registry: " + files.map(p -> p.getFileName() + "=" + SocketFile.identity(p)).toList()
          + ", log: " + logLines();
    } catch (IOException e) {
      return "registry unreadable: " + e;
    }
  }

  @Test
  void getInfoTellsTheKubeletTheDriverItsCsiSocketAndTheRegistrarsVersions() throws Exception {
    startRegistration();

    PluginInfo info = getInfo(socket());

    assertThat(info.getType()).isEqualTo("CSIPlugin");
    assertThat(info.getName()).isEqualTo(FakeDriver.NAME);
    assertThat(info.getEndpoint()).isEqualTo(KUBELET_PATH);
    assertThat(info.getSupportedVersionsList()).containsExactly("1.0.0");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket(), LinkOption.NOFOLLOW_LINKS)))
        .isEqualTo("rw-------");
    try (Stream<Path> files = Files.list(registry)) {
      assertThat(files).as("only the socket; no temporary file left").containsExactly(socket());
    }
    assertThat(registration.state()).isInstanceOf(RegistrationState.Waiting.class);
  }

  @Test
  void aSuccessfulRegistrationIsRecordedLoggedOnceAndShownInMetrics() throws Exception {
    MetricsRegistry metrics = new MetricsRegistry();
    startRegistration(metrics);
    assertThat(metrics.scrape()).contains("csi_kubelet_registration_registered 0\n");
    HttpResponse<String> waiting = get("/readyz");
    assertThat(waiting.statusCode()).isEqualTo(503);
    assertThat(waiting.body()).contains("the kubelet has not registered " + FakeDriver.NAME);
    assertThat(get("/livez").statusCode()).isEqualTo(200);

    kubeletRegisters(socket(), true, "");

    assertThat(registration.state()).isInstanceOf(RegistrationState.Registered.class);
    assertThat(metrics.scrape()).contains("csi_kubelet_registration_registered 1\n",
        "csi_kubelet_registration_notifications_total{registered=\"true\"} 1\n",
        "csi_kubelet_registration_get_info_total 1\n",
        "csi_kubelet_registration_socket_served_total{reason=\"start\"} 1\n");
    assertThat(logLines()).filteredOn(l -> l.contains("kubelet registered"))
        .containsExactly("INFO kubelet registered " + FakeDriver.NAME + " with CSI endpoint " + KUBELET_PATH);
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
  }

  @Test
  void aFailedRegistrationFailsReadinessThenTheSocketIsServedAnewAndTheKubeletRegistersAgain() throws Exception {
    MetricsRegistry metrics = new MetricsRegistry();
    startRegistration(metrics);
    Object first = SocketFile.identity(socket());

    kubeletRegisters(socket(), false, "RegisterPlugin error -- plugin registration failed with err: no node info");

    assertThat(registration.state()).isInstanceOfSatisfying(RegistrationState.Failed.class,
        f -> assertThat(f.error()).contains("no node info"));
    HttpResponse<String> ready = get("/readyz");
    assertThat(ready.statusCode()).isEqualTo(503);
    assertThat(ready.body()).contains("kubelet registration failed: RegisterPlugin error").contains("no node info");
    assertThat(get("/healthz").statusCode()).as("live: the socket is served anew in-process, no restart needed")
        .isEqualTo(200);
    assertThat(logLines()).anyMatch(l -> l.startsWith("ERROR kubelet registration of " + FakeDriver.NAME
        + " failed: RegisterPlugin error -- plugin registration failed with err: no node info"));
    assertThat(metrics.scrape()).contains("csi_kubelet_registration_notifications_total{registered=\"false\"} 1\n",
        "csi_kubelet_registration_registered 0\n");

    // As after the registrar's restart: a new socket, so the kubelet registers from scratch.
    await("a new registration socket, counted", () -> {
      Object now = SocketFile.identity(socket());
      return now != null && !now.equals(first)
          && metrics.scrape().contains("csi_kubelet_registration_socket_served_total{reason=\"registration_failed\"} 1\n");
    }, this::dirListing);
    assertThat(get("/readyz").statusCode()).as("still failed until the kubelet reports otherwise").isEqualTo(503);

    kubeletRegisters(socket(), true, "");

    assertThat(registration.state()).isInstanceOf(RegistrationState.Registered.class);
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
    assertThat(metrics.scrape()).contains("csi_kubelet_registration_registered 1\n");
  }

  @Test
  void failuresInARowWaitLongerEachTime() throws Exception {
    MetricsRegistry metrics = new MetricsRegistry();
    startRegistration(metrics);

    kubeletRegisters(socket(), false, "first");
    await("the first retry", () -> metrics.scrape().contains("reason=\"registration_failed\"} 1"), this::dirListing);
    long second = System.nanoTime();
    kubeletRegisters(socket(), false, "second");
    await("the second retry", () -> metrics.scrape().contains("reason=\"registration_failed\"} 2"), this::dirListing);
    long secondWaitMs = (System.nanoTime() - second) / 1_000_000;

    assertThat(logLines()).anyMatch(l -> l.contains("failed: first"))
        .anyMatch(l -> l.contains("failed: second"));
    // 300 ms after the first failure, 600 ms after the second
    assertThat(secondWaitMs).isGreaterThanOrEqualTo(550);
  }

  @Test
  void aRemovedSocketIsServedAgainAndAWipedDirectoryMadeAgain() throws Exception {
    MetricsRegistry metrics = new MetricsRegistry();
    startRegistration(metrics);
    kubeletRegisters(socket(), true, "");

    Files.delete(socket());
    await("the socket served again after its removal", () -> Files.exists(socket(), LinkOption.NOFOLLOW_LINKS),
        this::dirListing);
    assertThat(getInfo(socket()).getName()).isEqualTo(FakeDriver.NAME);
    assertThat(registration.state()).as("a new socket is a new plugin to the kubelet")
        .isInstanceOf(RegistrationState.Waiting.class);

    deleteTree(registry);
    await("the directory and socket made again after a wipe", () -> Files.exists(socket(), LinkOption.NOFOLLOW_LINKS),
        this::dirListing);
    PluginInfo info = kubeletRegisters(socket(), true, "");

    assertThat(info.getEndpoint()).isEqualTo(KUBELET_PATH);
    assertThat(registration.state()).isInstanceOf(RegistrationState.Registered.class);
    assertThat(metrics.scrape()).contains("csi_kubelet_registration_socket_served_total{reason=\"removed\"} 2\n");
    assertThat(logLines()).filteredOn(l -> l.contains("served again: it was removed")).hasSize(2);
  }

  @Test
  void aKubeletRestartRegistersTheSameSocketAgain() throws Exception {
    startRegistration();
    kubeletRegisters(socket(), true, "");
    Object served = SocketFile.identity(socket());

    // A restarted kubelet walks the directory and registers what it finds, over a new connection.
    PluginInfo info = kubeletRegisters(socket(), true, "");

    assertThat(info.getName()).isEqualTo(FakeDriver.NAME);
    assertThat(SocketFile.identity(socket())).isEqualTo(served);
    assertThat(registration.state()).isInstanceOf(RegistrationState.Registered.class);
  }

  @Test
  void aStaleSocketInItsPlaceIsReplaced() throws Exception {
    startRegistration();
    Path stale = registry.resolve("stale.sock");
    try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      gone.bind(UnixDomainSocketAddress.of(stale));
    }
    Object staleIdentity = SocketFile.identity(stale);
    Files.move(stale, socket(), StandardCopyOption.ATOMIC_MOVE);

    await("the stale socket replaced", () -> {
      Object now = SocketFile.identity(socket());
      return now != null && !now.equals(staleIdentity);
    }, this::dirListing);

    assertThat(getInfo(socket()).getName()).isEqualTo(FakeDriver.NAME);
  }

  @Test
  void aSocketAnotherLiveProcessTookOverIsLeftToItAndNotRemovedOnClose() throws Exception {
    startRegistration();
    Path other = registry.resolve("other.sock");
    try (ServerSocketChannel newer = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      newer.bind(UnixDomainSocketAddress.of(other));
      // A live process accepts: without it every check's connection stays in the listen backlog, which fills
      // (checks are frequent under load) so that connecting fails and the socket is rightly judged stale.
      Thread.ofVirtual().start(() -> {
        while (newer.isOpen()) {
          try (var accepted = newer.accept()) {
            // answered: nothing to read
          } catch (java.io.IOException closed) {
            return;
          }
        }
      });
      Object otherIdentity = SocketFile.identity(other);
      Files.move(other, socket(), StandardCopyOption.ATOMIC_MOVE);

      await("the take-over noticed", () -> logLines().stream().anyMatch(l -> l.contains("served by another process")),
          this::dirListing);
      Thread.sleep(200); // several more checks
      registration.close();

      assertThat(SocketFile.identity(socket())).as("the other process's socket, untouched").isEqualTo(otherIdentity);
      assertThat(logLines()).anyMatch(l -> l.contains("left as it is"));
    }
  }

  @Test
  void closingRemovesTheSocketAndTheRuntimeClosesItBeforeTheCsiSocket() throws Exception {
    startRegistration();
    assertThat(socket()).exists();

    runtime.close();

    assertThat(Files.exists(socket(), LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(Files.exists(dir.resolve("csi.sock"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    List<String> order = log.events().stream().map(LogRecord::message)
        .filter(m -> m.contains("registration socket") && m.contains("removed") || m.startsWith("stopped; socket"))
        .toList();
    assertThat(order).hasSize(2);
    assertThat(order.get(0)).startsWith("registration socket");
    assertThat(order.get(1)).startsWith("stopped; socket");
  }

  @Test
  void aRegularFileInPlaceOfTheSocketFailsLivenessWithTheReason() throws Exception {
    startRegistration();
    Path file = registry.resolve("file");
    Files.writeString(file, "someone's file");
    Files.move(file, socket(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

    await("liveness failed", () -> {
      try {
        return get("/livez").statusCode() == 503;
      } catch (Exception e) {
        return false;
      }
    }, this::dirListing);

    assertThat(get("/livez").body()).contains("kubelet registration: " + socket() + " is no longer a socket");
    assertThat(Files.readString(socket())).as("not deleted: it is not ours").isEqualTo("someone's file");
  }

  @Test
  void aRegularFileAtTheSocketPathStopsTheStartWithOneLine() throws Exception {
    Files.createDirectories(registry);
    Files.writeString(socket(), "not a socket");

    assertThatThrownBy(this::startRegistration).isInstanceOf(IOException.class)
        .hasMessage(socket() + " exists and is not a socket; remove it or choose another --plugin-registration-path");
    assertThat(Files.readString(socket())).isEqualTo("not a socket");
  }

  @Test
  void aStaleSocketLeftByACrashIsReplacedAtStart() throws Exception {
    Files.createDirectories(registry);
    try (ServerSocketChannel crashed = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      crashed.bind(UnixDomainSocketAddress.of(socket()));
    }

    startRegistration();

    assertThat(getInfo(socket()).getName()).isEqualTo(FakeDriver.NAME);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
