package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.awscsi.core.logging.LoggingSetup;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's startup taint is removed by a child JVM: a real child process against a small Kubernetes API stand-in
 * (one tainted Node, its CSINode with the driver registered).
 */
class StartupTaintProcessTest {

  @TempDir
  Path dir;

  private HttpServer api;
  private final List<String> patches = new CopyOnWriteArrayList<>();
  private volatile String taints = "[{\"key\":\"ebs.csi.aws.com/agent-not-ready\",\"effect\":\"NoExecute\"},"
      + "{\"key\":\"example.com/keep\",\"effect\":\"NoSchedule\"}]";

  @BeforeEach
  void startApi() throws IOException {
    api = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    api.createContext("/api/v1/nodes/node-1", exchange -> {
      if (exchange.getRequestMethod().equals("PATCH")) {
        patches.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        taints = "[{\"key\":\"example.com/keep\",\"effect\":\"NoSchedule\"}]";
      }
      reply(exchange, 200, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-1\","
          + "\"resourceVersion\":\"" + (patches.size() + 1) + "\"},\"spec\":{\"taints\":" + taints + "}}");
    });
    api.createContext("/apis/storage.k8s.io/v1/csinodes/node-1", exchange -> reply(exchange, 200,
        "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"CSINode\",\"metadata\":{\"name\":\"node-1\"},\"spec\":"
            + "{\"drivers\":[{\"name\":\"ebs.csi.aws.com\",\"nodeID\":\"i-1\",\"allocatable\":{\"count\":25}}]}}"));
    api.start();
  }

  @AfterEach
  void stopApi() {
    api.stop(0);
  }

  private static void reply(HttpExchange exchange, int code, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  private Map<String, String> clusterEnv() throws IOException {
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "http://127.0.0.1:%d"}}]
        users: [{name: u, user: {token: t}}]
        contexts: [{name: x, context: {cluster: c, user: u}}]
        current-context: x
        """.formatted(api.getAddress().getPort()));
    return Map.of("KUBECONFIG", kubeconfig.toString(), "CSI_NODE_NAME", "node-1", "HOME", dir.toString(),
        "PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
  }

  @Test
  void aChildProcessRemovesTheTaintAndKeepsTheOthers() throws Exception {
    try (StartupTaintProcess child = StartupTaintProcess.start("ebs", clusterEnv(), LoggingSetup.Format.TEXT,
        Level.INFO).orElseThrow()) {
      assertThat(child.pid()).isNotEqualTo(ProcessHandle.current().pid());
      assertThat(child.exit().get(60, TimeUnit.SECONDS)).isZero();
    }
    assertThat(patches).singleElement().asString().contains("\"op\":\"test\"", "{\"op\":\"replace\",\"path\":"
        + "\"/spec/taints\",\"value\":[{\"effect\":\"NoSchedule\",\"key\":\"example.com/keep\"}]}");
    assertThat(taints).doesNotContain("agent-not-ready");
  }

  @Test
  void noChildWhenRemovalDoesNotApplyHere() throws Exception {
    Map<String, String> optedOut = new java.util.HashMap<>(clusterEnv());
    optedOut.put("DISABLE_TAINT_WATCHER", "true");
    Map<String, String> nameless = new java.util.HashMap<>(clusterEnv());
    nameless.remove("CSI_NODE_NAME");

    assertThat(StartupTaintProcess.start("ebs", optedOut, LoggingSetup.Format.TEXT, Level.INFO)).isEmpty();
    assertThat(StartupTaintProcess.start("efs", nameless, LoggingSetup.Format.TEXT, Level.INFO)).isEmpty();
    assertThat(patches).isEmpty();
  }

  @Test
  void theChildIsTheSameJavaAndClassPathRunningTheSubcommandWithTheNodesLogSettings() {
    List<String> command = StartupTaintProcess.command("efs", LoggingSetup.Format.JSON, Level.DEBUG);

    assertThat(command.getFirst()).isEqualTo(ProcessHandle.current().info().command().orElseThrow());
    assertThat(command).containsSequence("-cp", System.getProperty("java.class.path"), Main.class.getName(),
        "remove-startup-taint", "--driver", "efs", "--log-format", "json", "--log-level", "debug");
    assertThat(String.join(" ", command)).doesNotContain("AOTCache");
  }

  @Test
  void theSubcommandRefusesAnUnknownDriverAndReportsGivingUpAsFailure() {
    var err = new java.io.ByteArrayOutputStream();
    assertThat(Main.run(new String[] {"remove-startup-taint", "--driver", "gce"}, Map.of(),
        System.out, new java.io.PrintStream(err, true, StandardCharsets.UTF_8))).isEqualTo(Main.EXIT_USAGE);
    assertThat(err.toString()).contains("--driver must be ebs or efs");
  }
}
