package io.awscsi.e2e.localstack;

import io.awscsi.launcher.DriverOptions.Driver;
import io.awscsi.realism.process.LocalStackServer;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The LocalStack the lane runs against, started the way {@link LocalStackMode} chose: a plain process (community:
 * EBS only, EFS stays on moto) or a container of the paid image (EBS and EFS).
 */
sealed interface LocalStackEmulator extends AutoCloseable {

  String DEFAULT_IMAGE = "localstack/localstack-pro:latest";

  URI endpoint();

  /** The drivers whose AWS services this LocalStack serves. */
  Set<Driver> drivers();

  /** Extra environment for the drivers (credentials LocalStack hands out). */
  Map<String, String> driverEnvironment();

  /** What the loopback guard refused (always empty for the container, which has no guard). */
  List<String> refusedOutbound();

  String describe();

  @Override
  void close();

  static LocalStackEmulator start(Map<String, String> env) {
    LocalStackMode mode = LocalStackMode.choose(env, LocalStackEmulator::dockerEngineRuns);
    System.out.println("LocalStack lane: " + mode.kind().name().toLowerCase() + " (" + mode.reason() + ")");
    return switch (mode.kind()) {
      case PROCESS -> new AsProcess(LocalStackServer.start());
      case CONTAINER -> InContainer.start(env);
    };
  }

  private static boolean dockerEngineRuns() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** LocalStack community from PyPI in {@code .tools/localstack}, no Docker, no token: EC2 and STS. */
  record AsProcess(LocalStackServer server) implements LocalStackEmulator {

    @Override
    public URI endpoint() {
      return server.endpoint();
    }

    @Override
    public Set<Driver> drivers() {
      return Set.of(Driver.EBS);
    }

    @Override
    public Map<String, String> driverEnvironment() {
      return Map.of(); // LocalStack takes any keys; the drivers use their loopback dummy keys
    }

    @Override
    public List<String> refusedOutbound() {
      return server.refusedOutbound();
    }

    @Override
    public String describe() {
      return "LocalStack " + LocalStackServer.VERSION + " as a process (pid " + server.pid() + ") at "
          + server.endpoint() + ", ready in " + server.startTime().toMillis() + " ms";
    }

    @Override
    public void close() {
      server.close();
    }
  }

  /** The paid image through Testcontainers (needs the engine and LOCALSTACK_AUTH_TOKEN): EC2, EFS and STS. */
  record InContainer(LocalStackContainer container) implements LocalStackEmulator {

    static InContainer start(Map<String, String> env) {
      DockerImageName image = DockerImageName.parse(env.getOrDefault("LOCALSTACK_IMAGE", DEFAULT_IMAGE))
          .asCompatibleSubstituteFor("localstack/localstack");
      LocalStackContainer container = new LocalStackContainer(image).withServices("ec2", "efs", "sts")
          .withEnv(LocalStackMode.TOKEN, env.getOrDefault(LocalStackMode.TOKEN, ""));
      try {
        container.start();
      } catch (RuntimeException e) {
        container.close();
        throw e;
      }
      return new InContainer(container);
    }

    @Override
    public URI endpoint() {
      return container.getEndpoint();
    }

    @Override
    public Set<Driver> drivers() {
      return Set.of(Driver.EBS, Driver.EFS);
    }

    @Override
    public Map<String, String> driverEnvironment() {
      return Map.of("AWS_ACCESS_KEY_ID", container.getAccessKey(), "AWS_SECRET_ACCESS_KEY",
          container.getSecretKey());
    }

    @Override
    public List<String> refusedOutbound() {
      return List.of();
    }

    @Override
    public String describe() {
      return "LocalStack image " + container.getDockerImageName() + " at " + container.getEndpoint();
    }

    @Override
    public void close() {
      container.close();
    }
  }
}
