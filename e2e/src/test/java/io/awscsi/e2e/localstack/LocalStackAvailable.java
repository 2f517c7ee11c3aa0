package io.awscsi.e2e.localstack;

import java.util.Map;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

/**
 * Runs a test only where LocalStack can start: an auth token (current LocalStack images refuse to start without one)
 * and a reachable Docker engine. Otherwise the test is reported skipped with the missing piece named.
 */
final class LocalStackAvailable implements ExecutionCondition {

  static final String TOKEN = "LOCALSTACK_AUTH_TOKEN";

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    return evaluate(System.getenv(), LocalStackAvailable::dockerEngineRuns);
  }

  static ConditionEvaluationResult evaluate(Map<String, String> env, java.util.function.BooleanSupplier docker) {
    String token = env.get(TOKEN);
    if (token == null || token.isBlank()) {
      return ConditionEvaluationResult.disabled(TOKEN + " is not set: current LocalStack images need an auth token"
          + " (EFS needs the paid image); set it and run where a Docker engine runs");
    }
    // Asked second: probing for Docker is slow and noisy where none runs.
    if (!docker.getAsBoolean()) {
      return ConditionEvaluationResult.disabled("no Docker engine reachable (DOCKER_HOST or /var/run/docker.sock):"
          + " Testcontainers cannot start LocalStack here");
    }
    return ConditionEvaluationResult.enabled("LocalStack token set and a Docker engine runs");
  }

  private static boolean dockerEngineRuns() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException e) {
      return false;
    }
  }
}
