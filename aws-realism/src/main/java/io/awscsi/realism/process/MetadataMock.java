package io.awscsi.realism.process;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * amazon-ec2-metadata-mock on a free loopback port with IMDSv2 tokens required, reporting the instance id, type and
 * zone it is given both in the metadata paths and in the instance identity document (the tool's defaults disagree).
 * Install it with {@code go install github.com/aws/amazon-ec2-metadata-mock/cmd/ec2-metadata-mock@v1.13.0}.
 */
public final class MetadataMock implements AutoCloseable {

  public static final String EXECUTABLE = "ec2-metadata-mock";
  public static final String INSTALL_COMMAND =
      "go install github.com/aws/amazon-ec2-metadata-mock/cmd/ec2-metadata-mock@v1.13.0";

  private static final Logger LOG = LogManager.getLogger(MetadataMock.class);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ChildProcess process;
  private final int port;
  private final Path directory;
  private final Identity identity;

  /** What the mock reports about "this" instance. */
  public record Identity(String instanceId, String instanceType, String availabilityZone, String availabilityZoneId,
                         String accountId, String privateIp) {

    public Identity {
      Objects.requireNonNull(instanceId, "instanceId");
      Objects.requireNonNull(instanceType, "instanceType");
      Objects.requireNonNull(availabilityZone, "availabilityZone");
      Objects.requireNonNull(availabilityZoneId, "availabilityZoneId");
      Objects.requireNonNull(accountId, "accountId");
      Objects.requireNonNull(privateIp, "privateIp");
      if (!availabilityZone.matches("[a-z]{2}(-[a-z]+)+-\\d[a-z]")) {
        throw new IllegalArgumentException("not an availability zone name: '" + availabilityZone + "'");
      }
    }

    public String region() {
      return availabilityZone.substring(0, availabilityZone.length() - 1);
    }
  }

  private MetadataMock(ChildProcess process, int port, Path directory, Identity identity) {
    this.process = process;
    this.port = port;
    this.directory = directory;
    this.identity = identity;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The IMDS endpoint, for example for {@code Ec2MetadataClient.builder().endpoint(...)}. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  public int port() {
    return port;
  }

  /** Process id of the mock, for checks that nothing is left running. */
  public long pid() {
    return process.pid();
  }

  public Identity identity() {
    return identity;
  }

  @Override
  public void close() {
    process.stop();
    try (Stream<Path> files = Files.walk(directory)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      LOG.debug("cannot delete {}: {}", directory, e.getMessage());
    }
    LOG.info("ec2-metadata-mock on 127.0.0.1:{} stopped", port);
  }

  /** The executable: on PATH, else in {@code $(go env GOPATH)/bin}. */
  public static Optional<Path> findExecutable() {
    return ExecutableLookup.onPath(EXECUTABLE)
        .or(() -> ExecutableLookup.inDirectories(EXECUTABLE, ExecutableLookup.goBinDirectories()));
  }

  private static String config(Identity identity) {
    ObjectNode root = JSON.createObjectNode();
    root.putObject("metadata").putObject("values")
        .put("instance-id", identity.instanceId())
        .put("instance-type", identity.instanceType())
        .put("placement-availability-zone", identity.availabilityZone())
        .put("placement-availability-zone-id", identity.availabilityZoneId())
        .put("placement-region", identity.region())
        .put("local-ipv4", identity.privateIp());
    root.putObject("dynamic").putObject("values").putObject("instance-identity-document")
        .put("accountId", identity.accountId())
        .put("imageId", "ami-0b69ea66ff7391e80")
        .put("availabilityZone", identity.availabilityZone())
        .putNull("ramdiskId")
        .putNull("kernelId")
        .putNull("devpayProductCodes")
        .putNull("marketplaceProductCodes")
        .put("version", "2017-09-30")
        .put("privateIp", identity.privateIp())
        .putNull("billingProducts")
        .put("instanceId", identity.instanceId())
        .put("pendingTime", "2026-01-01T00:00:00Z")
        .put("architecture", "x86_64")
        .put("instanceType", identity.instanceType())
        .put("region", identity.region());
    return root.toPrettyString();
  }

  private static void awaitReady(ChildProcess process, int port) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    var probe = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/latest/api/token"))
        .header("X-aws-ec2-metadata-token-ttl-seconds", "60")
        .timeout(Duration.ofSeconds(5))
        .PUT(HttpRequest.BodyPublishers.noBody()).build();
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("ec2-metadata-mock exited before answering on port " + port + ":\n"
            + process.outputTail());
      }
      try {
        if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for ec2-metadata-mock", e);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for ec2-metadata-mock", e);
      }
    }
    throw new IllegalStateException("ec2-metadata-mock did not answer on port " + port + " within "
        + START_TIMEOUT + ":\n" + process.outputTail());
  }

  /** Builder; defaults match the tool's own defaults with the identity document made consistent. */
  public static final class Builder {
    private String instanceId = "i-1234567890abcdef0";
    private String instanceType = "m4.xlarge";
    private String availabilityZone = "us-east-1a";
    private String availabilityZoneId;
    private String accountId = "123456789012";
    private String privateIp = "10.0.7.10";

    private Builder() {}

    public Builder instanceId(String value) {
      this.instanceId = Objects.requireNonNull(value);
      return this;
    }

    public Builder instanceType(String value) {
      this.instanceType = Objects.requireNonNull(value);
      return this;
    }

    public Builder availabilityZone(String value) {
      this.availabilityZone = Objects.requireNonNull(value);
      return this;
    }

    /** Defaults to a made-up id derived from the zone ({@code us-east-1a} gives {@code use1-az1}). */
    public Builder availabilityZoneId(String value) {
      this.availabilityZoneId = Objects.requireNonNull(value);
      return this;
    }

    public Builder accountId(String value) {
      this.accountId = Objects.requireNonNull(value);
      return this;
    }

    public Builder privateIp(String value) {
      this.privateIp = Objects.requireNonNull(value);
      return this;
    }

    /**
     * Writes the configuration, starts the mock and waits until it hands out tokens.
     *
     * @throws IllegalStateException when the executable is missing (the message says how to install it)
     */
    public MetadataMock start() {
      Identity identity = new Identity(instanceId, instanceType, availabilityZone,
          availabilityZoneId != null ? availabilityZoneId : zoneId(availabilityZone), accountId, privateIp);
      Path executable = findExecutable().orElseThrow(() -> new IllegalStateException(
          EXECUTABLE + " is not on PATH nor in $(go env GOPATH)/bin: install it with " + INSTALL_COMMAND));
      Path directory;
      try {
        directory = Files.createTempDirectory("ec2-metadata-mock-");
        Files.writeString(directory.resolve("aemm-config.json"), config(identity));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write the ec2-metadata-mock configuration", e);
      }
      int port = FreePorts.pick();
      ChildProcess process = ChildProcess.start(EXECUTABLE, List.of(executable.toString(),
          "-n", "127.0.0.1", "-p", String.valueOf(port), "-I",
          "-c", directory.resolve("aemm-config.json").toString()), directory, Map.of());
      var mock = new MetadataMock(process, port, directory, identity);
      try {
        awaitReady(process, port);
      } catch (RuntimeException e) {
        mock.close();
        throw e;
      }
      LOG.info("ec2-metadata-mock ready on 127.0.0.1:{} as {} in {}", port, instanceId, availabilityZone);
      return mock;
    }

    private static String zoneId(String zone) {
      String region = zone.substring(0, zone.length() - 1);
      String[] parts = region.split("-");
      var shortName = new StringBuilder(parts[0]);
      for (int i = 1; i < parts.length - 1; i++) {
        shortName.append(parts[i].charAt(0));
      }
      return shortName + parts[parts.length - 1] + "-az" + (zone.charAt(zone.length() - 1) - 'a' + 1);
    }
  }
}
