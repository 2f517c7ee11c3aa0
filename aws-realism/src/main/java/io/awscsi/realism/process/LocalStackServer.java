package io.awscsi.realism.process;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * LocalStack (community) as a plain process on a free loopback port, serving EC2 and STS: {@code python -m
 * localstack.runtime.main} from the venv {@code hack/install-localstack.sh} makes in {@code .tools/localstack}. No
 * Docker engine and no auth token. Close it to stop the process and remove its files.
 *
 * <p>Nothing may leave the machine, and LocalStack reaches out by default: its DNS server looks up an outside name,
 * it downloads a TLS certificate, publishes analytics events and pings Docker bridge addresses when it thinks it runs
 * in a container. The environment below switches each of these off, and a Python start-up hook (the resource
 * {@code loopback_guard/sitecustomize.py}, on {@code PYTHONPATH} of every Python process it starts) refuses whatever
 * is left: a lookup of a name that needs DNS, a connection or datagram off loopback, a non-loopback listening address,
 * a child program other than Python. Each refusal is one line of {@link #refusedOutbound()}.
 *
 * <p>The gateway listens on {@code [::ffff:127.0.0.1]:PORT}: LocalStack's default server (twisted) binds every
 * interface for an IPv4 listen address and honours the host only for IPv6 ones; the IPv4-mapped loopback address is
 * IPv6 to it and 127.0.0.1 to clients.
 */
public final class LocalStackServer implements AutoCloseable {

  public static final String VERSION = "2026.3.0";
  /** Overrides where the venv's interpreter is looked for. */
  public static final String PYTHON_ENV = "LOCALSTACK_PYTHON";
  static final String INSTALL_HINT = "run hack/install-localstack.sh (make deps does)";

  private static final Logger LOG = LogManager.getLogger(LocalStackServer.class);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final int START_ATTEMPTS = 3;
  private static final String GUARD = "loopback_guard/sitecustomize.py";

  private final ChildProcess process;
  private final int port;
  private final Path directory;
  private final Duration startTime;

  private LocalStackServer(ChildProcess process, int port, Path directory, Duration startTime) {
    this.process = process;
    this.port = port;
    this.directory = directory;
    this.startTime = startTime;
  }

  /**
   * Starts LocalStack and waits until its gateway answers.
   *
   * @throws IllegalStateException when LocalStack is not installed (the message says how to install it) or does not
   *     start (the message carries its last output lines)
   */
  public static LocalStackServer start() {
    Path python = findPython().orElseThrow(() -> new IllegalStateException("LocalStack " + VERSION
        + " is not installed (no .tools/localstack/bin/python here or in a parent directory, no $" + PYTHON_ENV
        + "): " + INSTALL_HINT));
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2)).build();
    IllegalStateException last = null;
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      Path directory = workDirectory();
      int port = FreePorts.pick();
      Instant started = Instant.now();
      ChildProcess process = ChildProcess.start("localstack",
          List.of(python.toString(), "-m", "localstack.runtime.main"), directory, environment(directory, port));
      try {
        awaitReady(process, port, http);
        Duration took = Duration.between(started, Instant.now());
        LOG.info("LocalStack {} ready on 127.0.0.1:{} (pid {}) in {} ms", VERSION, port, process.pid(),
            took.toMillis());
        return new LocalStackServer(process, port, directory, took);
      } catch (IllegalStateException e) {
        String output = process.outputTail();
        process.stop();
        deleteTree(directory);
        last = e;
        if (!output.contains("Address already in use")) {
          break;
        }
      }
    }
    throw last;
  }

  /** The interpreter of the venv: {@code $LOCALSTACK_PYTHON}, else {@code .tools/localstack/bin/python} upwards. */
  public static Optional<Path> findPython() {
    String override = System.getenv(PYTHON_ENV);
    if (override != null && !override.isBlank()) {
      return Optional.of(Path.of(override)).filter(Files::isExecutable);
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve(".tools/localstack/bin/python");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** LocalStack's settings: EC2 and STS only, loopback only, and every outbound feature off. */
  static Map<String, String> environment(Path directory, int port) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("GATEWAY_LISTEN", "[::ffff:127.0.0.1]:" + port);
    env.put("LOCALSTACK_HOST", "127.0.0.1:" + port); // the host in URLs it hands out; the default needs DNS
    env.put("SERVICES", "ec2,sts");
    env.put("DNS_ADDRESS", "0"); // no DNS server, and so no lookup of its upstream resolver's test name
    env.put("DISABLE_EVENTS", "1"); // no analytics
    env.put("SKIP_SSL_CERT_DOWNLOAD", "1"); // a self-signed certificate instead of a download
    env.put("OVERRIDE_IN_DOCKER", "0"); // host mode: no Docker bridge pings, no container-only paths
    env.put("DOCKER_BRIDGE_IP", "127.0.0.1");
    // Its thousands of built-in AMIs cost seconds on the first EC2 call; RunInstances takes any image id without them.
    env.put("MOTO_EC2_LOAD_DEFAULT_AMIS", "false");
    env.put("FILESYSTEM_ROOT", directory.resolve("filesystem").toString());
    env.put("PYTHONPATH", directory.resolve("loopback_guard").toString());
    env.put("LOOPBACK_GUARD_LOG", directory.resolve("refused.log").toString());
    env.put("PYTHONDONTWRITEBYTECODE", "1");
    return env;
  }

  private static Path workDirectory() {
    try {
      Path directory = Files.createTempDirectory("localstack-");
      writeGuard(directory);
      return directory;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare a LocalStack work directory", e);
    }
  }

  /** Writes the loopback guard to {@code directory/loopback_guard}, the directory to put on {@code PYTHONPATH}. */
  static Path writeGuard(Path directory) throws IOException {
    Path guard = directory.resolve(GUARD);
    Files.createDirectories(guard.getParent());
    try (InputStream in = LocalStackServer.class.getResourceAsStream(GUARD)) {
      if (in == null) {
        throw new IllegalStateException("resource " + GUARD + " missing from aws-realism");
      }
      Files.copy(in, guard);
    }
    return guard.getParent();
  }

  private static void awaitReady(ChildProcess process, int port, HttpClient http) {
    var probe = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/_localstack/health"))
        .timeout(Duration.ofSeconds(5)).GET().build();
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("LocalStack exited before answering on port " + port + ":\n"
            + process.outputTail());
      }
      try {
        HttpResponse<String> response = http.send(probe, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200 && response.body().contains("\"ec2\"")) {
          warmUp(process, port, http);
          return;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for LocalStack on port " + port, e);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for LocalStack on port " + port, e);
      }
    }
    throw new IllegalStateException("LocalStack did not answer on port " + port + " within " + START_TIMEOUT
        + ":\n" + process.outputTail());
  }

  /**
   * LocalStack builds its EC2 backend on the first EC2 call (seconds); one call here makes the start time the time
   * until EC2 answers, and fails the start when it does not.
   */
  private static void warmUp(ChildProcess process, int port, HttpClient http) throws IOException,
      InterruptedException {
    var call = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Authorization", "AWS4-HMAC-SHA256 Credential=warmup/20260101/us-east-1/ec2/aws4_request, "
            + "SignedHeaders=host, Signature=0")
        .timeout(START_TIMEOUT)
        .POST(HttpRequest.BodyPublishers.ofString("Action=DescribeAvailabilityZones&Version=2016-11-15")).build();
    HttpResponse<String> response = http.send(call, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200 || !response.body().contains("us-east-1a")) {
      throw new IllegalStateException("LocalStack's EC2 on port " + port + " answered DescribeAvailabilityZones with"
          + " HTTP " + response.statusCode() + ": " + response.body() + "\n" + process.outputTail());
    }
  }

  /** The URI for {@code endpointOverride} or a {@code RealismProxy} upstream. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  public int port() {
    return port;
  }

  /** Process id of the server, for checks that nothing is left running. */
  public long pid() {
    return process.pid();
  }

  /** From the process start to the first answer of its gateway. */
  public Duration startTime() {
    return startTime;
  }

  /**
   * What the loopback guard refused so far, one line each ({@code refused lookup ('api.localstack.cloud', 443)}):
   * empty when LocalStack tried nothing that would leave the machine.
   */
  public List<String> refusedOutbound() {
    Path log = directory.resolve("refused.log");
    try {
      return Files.exists(log) ? Files.readAllLines(log) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + log, e);
    }
  }

  /** The last lines LocalStack wrote, for failure messages. */
  public String outputTail() {
    return process.outputTail();
  }

  @Override
  public void close() {
    List<String> refused = refusedOutbound();
    if (!refused.isEmpty()) {
      LOG.warn("LocalStack on 127.0.0.1:{} tried to leave the machine (refused): {}", port, refused);
    }
    // Its state is thrown away; after its orderly shutdown (about a second) Python's final garbage collection of the
    // EC2 emulation takes ten seconds more, which nothing needs.
    process.stop(Duration.ofSeconds(3));
    deleteTree(directory);
    LOG.info("LocalStack on 127.0.0.1:{} stopped", port);
  }

  private static void deleteTree(Path directory) {
    try (Stream<Path> files = Files.walk(directory)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      LOG.debug("cannot delete {}: {}", directory, e.getMessage());
    }
  }
}
