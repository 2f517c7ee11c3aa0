package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cluster suite's skip rule names what is missing, and probes the cluster only when everything else is there. */
class ClusterAvailableTest {

  @TempDir
  Path dir;

  @Test
  void skipsWithoutKubeconfig() {
    var result = ClusterAvailable.evaluate(Map.of("AWS_PROFILE", "p", "E2E_IMAGE", "r:t"), () -> true);
    assertThat(result.isDisabled()).isTrue();
    assertThat(result.getReason()).hasValueSatisfying(r -> assertThat(r).startsWith("KUBECONFIG is not set"));
  }

  @Test
  void skipsWithoutCredentialsOrImage() throws Exception {
    Path kubeconfig = Files.writeString(dir.resolve("config"), "apiVersion: v1\nkind: Config\n");
    Map<String, String> env = new HashMap<>(Map.of("KUBECONFIG", kubeconfig.toString()));
    assertThat(ClusterAvailable.evaluate(env, () -> true).getReason())
        .hasValueSatisfying(r -> assertThat(r).startsWith("no AWS credentials"));
    env.put("AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/token");
    assertThat(ClusterAvailable.evaluate(env, () -> true).getReason())
        .hasValueSatisfying(r -> assertThat(r).startsWith("E2E_IMAGE is not set"));
  }

  @Test
  void runsOnlyWhenTheClusterAnswers() throws Exception {
    Path kubeconfig = Files.writeString(dir.resolve("config"), "apiVersion: v1\nkind: Config\n");
    Map<String, String> env = Map.of("KUBECONFIG", kubeconfig.toString(), "AWS_ACCESS_KEY_ID", "k",
        "E2E_IMAGE", "repo/aws-csi-driver:1");
    assertThat(ClusterAvailable.evaluate(env, () -> false).getReason())
        .hasValueSatisfying(r -> assertThat(r).contains("does not answer"));
    assertThat(ClusterAvailable.evaluate(env, () -> true).isDisabled()).isFalse();
  }

  @Test
  void localClusterNeedsItsFileAndAnAnswer() throws Exception {
    var missing = ClusterAvailable.evaluate(Map.of("E2E_LOCAL_CLUSTER", dir.resolve("none").toString()), () -> true);
    assertThat(missing.getReason()).hasValueSatisfying(r -> assertThat(r).contains("make cluster-up"));
    Path file = Files.writeString(dir.resolve("cluster.env"), "KUBECONFIG=/x\n");
    Map<String, String> env = Map.of("E2E_LOCAL_CLUSTER", file.toString());
    assertThat(ClusterAvailable.evaluate(env, () -> false).getReason())
        .hasValueSatisfying(r -> assertThat(r).contains("does not answer"));
    // No AWS credentials and no E2E_IMAGE needed: the harness deployed the driver on emulated AWS.
    assertThat(ClusterAvailable.evaluate(env, () -> true).isDisabled()).isFalse();
  }

  @Test
  void skipsWhenKubeconfigIsNotAFile() {
    var result = ClusterAvailable.evaluate(Map.of("KUBECONFIG", dir.resolve("missing").toString(),
        "AWS_PROFILE", "p", "E2E_IMAGE", "r:t"), () -> true);
    assertThat(result.getReason()).hasValueSatisfying(r -> assertThat(r).contains("not a readable file"));
  }
}
