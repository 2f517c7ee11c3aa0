package io.awscsi.e2e.localstack;

import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * How the LocalStack lane gets its LocalStack: in a container (Testcontainers, the paid image with EFS) where a Docker
 * engine runs and an auth token is set, else as a plain process from PyPI (community: EC2 and STS, no EFS). It never
 * skips: {@code LOCALSTACK_MODE=process|container} forces one way, and a forced container without an engine fails.
 */
record LocalStackMode(Kind kind, String reason) {

  enum Kind { PROCESS, CONTAINER }

  static final String TOKEN = "LOCALSTACK_AUTH_TOKEN";
  static final String MODE = "LOCALSTACK_MODE";

  static LocalStackMode choose(Map<String, String> env, BooleanSupplier dockerEngineRuns) {
    String forced = env.getOrDefault(MODE, "").strip();
    switch (forced) {
      case "process" -> {
        return new LocalStackMode(Kind.PROCESS, MODE + "=process");
      }
      case "container" -> {
        return new LocalStackMode(Kind.CONTAINER, MODE + "=container");
      }
      case "" -> { }
      default -> throw new IllegalArgumentException(MODE + " must be process or container, not '" + forced + "'");
    }
    String token = env.get(TOKEN);
    if (token == null || token.isBlank()) {
      return new LocalStackMode(Kind.PROCESS, TOKEN + " is not set: LocalStack's images need one");
    }
    // Asked second: probing for Docker is slow and noisy where none runs.
    if (!dockerEngineRuns.getAsBoolean()) {
      return new LocalStackMode(Kind.PROCESS, "no Docker engine reachable (DOCKER_HOST or /var/run/docker.sock)");
    }
    return new LocalStackMode(Kind.CONTAINER, TOKEN + " is set and a Docker engine runs");
  }
}
