package io.awscsi.e2e.cluster;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs the cluster suite only against a real cluster: the local cluster of {@code e2e/kube-local}
 * ({@code E2E_LOCAL_CLUSTER} names the file {@code cluster.sh up} wrote, and its API server answers), or an EKS
 * cluster: {@code KUBECONFIG} names a file whose cluster answers, AWS credentials are in the environment, and
 * {@code E2E_IMAGE} names the driver image to install. Otherwise every case is reported skipped with the missing
 * piece named. The cluster is probed once per run.
 */
final class ClusterAvailable implements ExecutionCondition {

  private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(ClusterAvailable.class);
  static final String[] CREDENTIAL_VARIABLES = {"AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE"};

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    return context.getRoot().getStore(STORE).getOrComputeIfAbsent("result",
        k -> evaluate(System.getenv(), ClusterAvailable::answers), ConditionEvaluationResult.class);
  }

  static ConditionEvaluationResult evaluate(Map<String, String> env, BooleanSupplier clusterAnswers) {
    String local = env.get("E2E_LOCAL_CLUSTER");
    if (local != null && !local.isBlank()) {
      if (!Files.isReadable(Path.of(local))) {
        return ConditionEvaluationResult.disabled("E2E_LOCAL_CLUSTER names " + local + ", which is not a readable"
            + " file (bring the local cluster up: make cluster-up)");
      }
      if (!clusterAnswers.getAsBoolean()) {
        return ConditionEvaluationResult.disabled("the local cluster of " + local + " does not answer (make"
            + " cluster-up)");
      }
      return ConditionEvaluationResult.enabled("local cluster " + local);
    }
    String kubeconfig = env.get("KUBECONFIG");
    if (kubeconfig == null || kubeconfig.isBlank()) {
      return ConditionEvaluationResult.disabled("KUBECONFIG is not set: the cluster suite needs a real EKS cluster"
          + " (see e2e/README.md)");
    }
    // KUBECONFIG may list several files; the first is the one kubectl writes to and the one we check.
    Path first = Path.of(kubeconfig.split(":")[0]);
    if (!Files.isReadable(first)) {
      return ConditionEvaluationResult.disabled("KUBECONFIG names " + first + ", which is not a readable file");
    }
    boolean credentials = java.util.Arrays.stream(CREDENTIAL_VARIABLES)
        .anyMatch(v -> env.get(v) != null && !env.get(v).isBlank());
    if (!credentials) {
      return ConditionEvaluationResult.disabled("no AWS credentials: set one of "
          + String.join(", ", CREDENTIAL_VARIABLES));
    }
    if (env.get("E2E_IMAGE") == null || env.get("E2E_IMAGE").isBlank()) {
      return ConditionEvaluationResult.disabled("E2E_IMAGE is not set: name the driver image to install"
          + " (repository:tag, pullable by the cluster's nodes)");
    }
    if (!clusterAnswers.getAsBoolean()) {
      return ConditionEvaluationResult.disabled("the cluster in " + first + " does not answer (API server"
          + " unreachable or credentials refused)");
    }
    return ConditionEvaluationResult.enabled("cluster reachable, AWS credentials and E2E_IMAGE set");
  }

  private static boolean answers() {
    try {
      if (System.getenv("E2E_LOCAL_CLUSTER") != null) {
        try (KubernetesClient client = ClusterTarget.fromEnvironment(System.getenv()).newClient()) {
          return client.getKubernetesVersion() != null;
        }
      }
      // The same resolution kubectl does: every file KUBECONFIG lists, its current context.
      Config config = Config.autoConfigure(null);
      config.setRequestTimeout(10_000);
      config.setConnectionTimeout(10_000);
      try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
        return client.getKubernetesVersion() != null;
      }
    } catch (RuntimeException e) {
      return false;
    }
  }
}
