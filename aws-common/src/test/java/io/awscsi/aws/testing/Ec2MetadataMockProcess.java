package io.awscsi.aws.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * amazon-ec2-metadata-mock v1.13.0 on 127.0.0.1 with IMDSv2 enforced, reporting one instance consistently in the
 * metadata paths and the identity document (the mock's defaults disagree on the zone). Installs the binary with {@code
 * go install} when it is missing. Test scope only; aws-realism has a fuller helper the lead may consolidate with.
 */
public final class Ec2MetadataMockProcess implements AutoCloseable {

  public static final String MODULE = "github.com/aws/amazon-ec2-metadata-mock/cmd/ec2-metadata-mock@v1.13.0";

  private final Process process;
  private final Path home;
  private final int port;

  private Ec2MetadataMockProcess(Process process, Path home, int port) {
    this.process = process;
    this.home = home;
    this.port = port;
  }

  /** Starts the mock reporting this instance; waits until it answers token requests. */
  public static Ec2MetadataMockProcess start(
      String instanceId, String instanceType, String region, String zone, String zoneId) throws IOException {
    Path binary = binary();
    Path home = Files.createTempDirectory("aemm-");
    int port = freePort();
    Path config = home.resolve("aemm-config.json");
    Files.writeString(
        config,
        """
        {"metadata": {"values": {"instance-id": "%1$s", "instance-type": "%2$s", "placement-region": "%3$s",
                                 "placement-availability-zone": "%4$s", "placement-availability-zone-id": "%5$s"}},
         "dynamic": {"values": {"instance-identity-document": {"instanceId": "%1$s", "instanceType": "%2$s",
                                "region": "%3$s", "availabilityZone": "%4$s"}}}}
        """
            .formatted(instanceId, instanceType, region, zone, zoneId));
    ProcessBuilder pb =
        new ProcessBuilder(
                binary.toString(), "-n", "127.0.0.1", "-p", Integer.toString(port), "-I", "-c", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(home.resolve("mock.log").toFile());
    // HOME keeps the mock away from a developer's ~/aemm-config.json.
    pb.environment().put("HOME", home.toString());
    Ec2MetadataMockProcess mock = new Ec2MetadataMockProcess(pb.start(), home, port);
    try {
      mock.awaitReady();
    } catch (IOException | RuntimeException e) {
      mock.close();
      throw e;
    }
    return mock;
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The HTTP status of a GET without a session token (401 when IMDSv2 is enforced). */
  public int statusWithoutToken(String path) throws IOException, InterruptedException {
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(
              HttpRequest.newBuilder(endpoint().resolve(path)).GET().build(), HttpResponse.BodyHandlers.discarding())
          .statusCode();
    }
  }

  private void awaitReady() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build()) {
      HttpRequest tokenRequest =
          HttpRequest.newBuilder(endpoint().resolve("/latest/api/token"))
              .header("X-aws-ec2-metadata-token-ttl-seconds", "60")
              .PUT(HttpRequest.BodyPublishers.noBody())
              .build();
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IOException("ec2-metadata-mock exited: " + Files.readString(home.resolve("mock.log")));
        }
        try {
          if (http.send(tokenRequest, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
            return;
          }
        } catch (IOException notYet) {
          // not listening yet
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for ec2-metadata-mock", e);
    }
    throw new IOException("ec2-metadata-mock did not answer on port " + port + " within 20 s");
  }

  private static Path binary() throws IOException {
    Path installed = goBin().resolve("ec2-metadata-mock");
    if (Files.isExecutable(installed)) {
      return installed;
    }
    Process install = new ProcessBuilder("go", "install", MODULE).redirectErrorStream(true).start();
    String output = new String(install.getInputStream().readAllBytes());
    try {
      if (install.waitFor() != 0 || !Files.isExecutable(installed)) {
        throw new IOException("go install " + MODULE + " failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted installing ec2-metadata-mock", e);
    }
    return installed;
  }

  private static Path goBin() throws IOException {
    Process go = new ProcessBuilder("go", "env", "GOBIN", "GOPATH").start();
    List<String> lines = new String(go.getInputStream().readAllBytes()).lines().toList();
    try {
      go.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted running go env", e);
    }
    if (!lines.isEmpty() && !lines.get(0).isBlank()) {
      return Path.of(lines.get(0));
    }
    return Path.of(lines.get(1), "bin");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(home)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
