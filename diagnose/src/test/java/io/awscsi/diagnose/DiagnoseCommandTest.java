package io.awscsi.diagnose;

import static io.awscsi.diagnose.FakeCluster.GP3;
import static io.awscsi.diagnose.FakeCluster.NODE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command as a person runs it from a laptop: flags, kubeconfig and context, output, exit codes. */
class DiagnoseCommandTest {

  @TempDir
  Path dir;

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = DiagnoseCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** A kubeconfig whose current context points at nothing, and a context "mock" at the mock API server. */
  private Path kubeconfig(String mockUrl) throws Exception {
    Path file = dir.resolve("config");
    Files.writeString(file, """
        apiVersion: v1
        kind: Config
        current-context: elsewhere
        clusters:
          - name: elsewhere
            cluster: {server: "https://127.0.0.1:1"}
          - name: mock
            cluster: {server: "%s"}
        users:
          - name: someone
            user: {token: "not-a-secret"}
        contexts:
          - name: elsewhere
            context: {cluster: elsewhere, user: someone}
          - name: mock
            context: {cluster: mock, user: someone, namespace: shop}
        """.formatted(mockUrl));
    return file;
  }

  @Test
  void helpDescribesEveryStageWithItsComponent() {
    Run r = run("--help");

    assertThat(r.code()).isZero();
    for (Knowledge.Stage s : Knowledge.Stage.values()) {
      assertThat(r.out()).contains(s.title).contains(s.actor.component);
    }
    assertThat(r.out()).contains("--since", "--kubeconfig", "--context", "-o, --output", "Exit code: 0 healthy",
        "diagnose.clusterRole.create=true");
  }

  @Test
  void printTableIsTheGeneratedTable() {
    Run r = run("--print-table");

    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo(StageTable.markdown());
  }

  @Test
  void badArgumentsExitTwoWithTheReason() {
    assertThat(run("pvc", "no-slash")).satisfies(r -> {
      assertThat(r.code()).isEqualTo(2);
      assertThat(r.err()).contains("pvc needs NAMESPACE/NAME, got no-slash");
    });
    assertThat(run("pvc", "a/b", "--since", "yesterday").err()).contains("--since takes a duration");
    assertThat(run("pv", "a/b").err()).contains("a PV has no namespace");
    assertThat(run("deployment", "a/b").err()).contains("unknown kind deployment");
    assertThat(run("pvc", "a/b", "--frobnicate").err()).contains("unknown flag --frobnicate");
    assertThat(run("pvc", "a/b", "-o", "yaml").err()).contains("-o takes text or json");
  }

  @Test
  void fromALaptopWithAKubeconfigAndAContextItReportsInTextAndJson() throws Exception {
    try (FakeCluster cluster = FakeCluster.withDriver()) {
      cluster.pendingClaim("data", GP3, "1Gi");
      cluster.selectNode("data", NODE);
      var pv = cluster.bind("data", "vol-0123456789abcdef0");
      cluster.attachment(pv, NODE, false, "rpc error: code = PermissionDenied desc = AttachVolume of"
          + " vol-0123456789abcdef0 to i-1: UnauthorizedOperation: You are not authorized to perform this operation.");
      cluster.pod("app", "data", NODE, false);
      Path config = kubeconfig(cluster.client.getMasterUrl().toString());

      Run text = run("pvc", "shop/data", "--kubeconfig", config.toString(), "--context", "mock");
      Run json = run("pvc", "shop/data", "--kubeconfig=" + config, "--context=mock", "-o", "json", "--since", "30m");

      assertThat(text.code()).isEqualTo(1);
      assertThat(text.out()).contains("pvc shop/data: FAILED", "Stage: Attaching",
          "Component: csi-attacher in kube-system/" + FakeCluster.CONTROLLER + " (the Lease holder)",
          "Reported: rpc error: code = PermissionDenied", "Means: AWS refused the call", "Full log:",
          "kubectl -n kube-system logs " + FakeCluster.CONTROLLER + " -c csi-attacher --since=1h");
      assertThat(json.code()).isEqualTo(1);
      JsonNode root = new ObjectMapper().readTree(json.out());
      assertThat(root.path("exitCode").asInt()).isEqualTo(1);
      JsonNode d = root.path("diagnoses").get(0);
      assertThat(d.path("verdict").asText()).isEqualTo("failed");
      assertThat(d.path("stage").asText()).isEqualTo("Attaching");
      assertThat(d.path("component").asText()).isEqualTo("csi-attacher");
      assertThat(d.path("knownError").asText()).isEqualTo("iam-denied");
      assertThat(d.path("driverLog").path("note").asText()).contains("in the last 30m");
      assertThat(d.path("commands").get(0).asText()).endsWith("--since=30m");
    }
  }

  @Test
  void anUnreachableApiServerCannotBeTold() throws Exception {
    Path config = kubeconfig("https://127.0.0.1:2");

    Run r = run("pvc", "shop/data", "--kubeconfig", config.toString(), "--request-timeout", "5s");

    assertThat(r.code()).isEqualTo(2);
    assertThat(r.out()).contains("pvc shop/data: COULD NOT TELL", "cannot read pvc shop/data through the Kubernetes"
        + " API at https://127.0.0.1:1");
  }

  @Test
  void aKubeconfigThatIsNotThereIsSaid() {
    Run r = run("pvc", "shop/data", "--kubeconfig", dir.resolve("missing").toString());

    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err() + r.out()).contains("missing");
  }
}
