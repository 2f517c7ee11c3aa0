package io.awscsi.realism.process;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * moto's server on a free loopback port ({@code moto_server -H 127.0.0.1 -p PORT}, or {@code python3 -m moto.server}
 * when only the module is installed). One port serves EC2, EFS, STS and IMDS. Close it to stop the process.
 *
 * <p>moto is started with {@code MOTO_EC2_LOAD_DEFAULT_AMIS=false}: its thousand built-in AMIs and their snapshots are
 * rebuilt on the first EC2 call after every reset, which costs seconds, and RunInstances accepts any image id without
 * them.
 */
public final class MotoServer implements AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(MotoServer.class);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final int START_ATTEMPTS = 3;

  private final ChildProcess process;
  private final int port;
  private final HttpClient http;

  private MotoServer(ChildProcess process, int port, HttpClient http) {
    this.process = process;
    this.port = port;
    this.http = http;
  }

  /**
   * Starts moto and waits until it answers.
   *
   * @throws MotoUnavailableException when moto is not installed
   */
  public static MotoServer start() {
    List<String> launcher = launcher();
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2)).build();
    IllegalStateException last = null;
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      int port = FreePorts.pick();
      var command = new ArrayList<>(launcher);
      command.addAll(List.of("-H", "127.0.0.1", "-p", String.valueOf(port)));
      ChildProcess process = ChildProcess.start("moto", command, null, Map.of("MOTO_EC2_LOAD_DEFAULT_AMIS", "false"));
      try {
        awaitReady(process, port, http);
        LOG.info("moto server ready on 127.0.0.1:{} (pid {})", port, process.pid());
        return new MotoServer(process, port, http);
      } catch (IllegalStateException e) {
        String output = process.outputTail();
        process.stop();
        if (output.contains("No module named") || output.contains("ModuleNotFoundError")
            || output.contains("command not found")) {
          throw new MotoUnavailableException(String.join(" ", launcher) + " says: " + lastLine(output));
        }
        last = e;
        if (!output.contains("Address already in use")) {
          break;
        }
      }
    }
    throw last;
  }

  private static List<String> launcher() {
    var motoServer = ExecutableLookup.onPath("moto_server");
    if (motoServer.isPresent()) {
      return List.of(motoServer.get().toString());
    }
    var python = ExecutableLookup.onPath("python3");
    if (python.isPresent()) {
      return List.of(python.get().toString(), "-m", "moto.server");
    }
    throw new MotoUnavailableException("neither moto_server nor python3 is on PATH");
  }

  private static void awaitReady(ChildProcess process, int port, HttpClient http) {
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    var probe = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/moto-api/"))
        .timeout(Duration.ofSeconds(5)).GET().build();
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("moto exited before answering on port " + port + ":\n"
            + process.outputTail());
      }
      try {
        http.send(probe, HttpResponse.BodyHandlers.discarding());
        return;
      } catch (IOException e) {
        sleep(Duration.ofMillis(100));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for moto on port " + port, e);
      }
    }
    throw new IllegalStateException("moto did not answer on port " + port + " within " + START_TIMEOUT + ":\n"
        + process.outputTail());
  }

  /** The URI for {@code endpointOverride} (or for a {@code RealismProxy} upstream). */
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

  /** Forgets every resource ({@code POST /moto-api/reset}). */
  public void reset() {
    var request = HttpRequest.newBuilder(URI.create(endpoint() + "/moto-api/reset"))
        .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody()).build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("moto on port " + port + " refused to reset: HTTP " + response.statusCode());
      }
    } catch (IOException e) {
      throw new IllegalStateException("moto on port " + port + " did not answer the reset: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while resetting moto", e);
    }
  }

  @Override
  public void close() {
    process.stop();
    LOG.info("moto server on 127.0.0.1:{} stopped", port);
  }

  private static String lastLine(String output) {
    String[] lines = output.strip().split("\n");
    return lines[lines.length - 1];
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
