package io.awscsi.e2e.cluster;

import io.awscsi.local.LocalAws;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.efs.EfsClient;

/**
 * The local cluster of {@code e2e/kube-local} as the suite sees it: the {@code KEY=value} file that
 * {@code cluster.sh up} writes ({@code E2E_LOCAL_CLUSTER} names it), with the kubeconfig, the local test image, the
 * emulated AWS endpoints, the instance that plays the node, the EFS file system, and the harness itself (for the
 * network guard's packet counters). The realism layer in front of moto takes faults over HTTP (an error for a call,
 * an attachment held in attaching).
 */
record LocalCluster(Path file, Map<String, String> values) {

  static Optional<LocalCluster> fromEnvironment(Map<String, String> env) {
    String file = env.get("E2E_LOCAL_CLUSTER");
    if (file == null || file.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(read(Path.of(file)));
  }

  static LocalCluster read(Path file) {
    try {
      Map<String, String> values = new LinkedHashMap<>();
      for (String line : Files.readAllLines(file)) {
        int eq = line.indexOf('=');
        if (eq > 0 && !line.startsWith("#")) {
          values.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
      return new LocalCluster(file, Map.copyOf(values));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the local cluster's description " + file
          + " (is it up? make cluster-up)", e);
    }
  }

  String get(String key) {
    String value = values.get(key);
    if (value == null) {
      throw new IllegalStateException(file + " has no " + key);
    }
    return value;
  }

  Path kubeconfig() {
    return Path.of(get("KUBECONFIG"));
  }

  String busyboxImage() {
    return get("E2E_BUSYBOX_IMAGE");
  }

  String fileSystemId() {
    return get("AWS_LOCAL_FILE_SYSTEM_ID");
  }

  String nodeInstanceId() {
    return get("AWS_LOCAL_INSTANCE_ID");
  }

  URI awsEndpoint() {
    return URI.create(get("AWS_ENDPOINT_URL"));
  }

  Path loopDirectory() {
    return Path.of(get("KUBE_LOCAL_LOOP_DIR"));
  }

  Path stateDirectory() {
    return Path.of(get("KUBE_LOCAL_STATE"));
  }

  /**
   * The EFS node's efs-utils state directory on the host where the node runs the efs-utils backend (pods mode, with
   * the stand-ins of hack/efs-utils-standin); empty where it runs the local backend (host processes).
   */
  java.util.Optional<Path> efsUtilsStateDirectory() {
    return java.util.Optional.ofNullable(values.get("KUBE_LOCAL_EFS_STATE_DIR")).filter(v -> !v.isBlank())
        .map(Path::of);
  }

  /** How many nodes the cluster runs (KUBE_LOCAL_NODES=3 make cluster-up: three; one before that mode existed). */
  int nodeCount() {
    return Integer.parseInt(values.getOrDefault("KUBE_LOCAL_NODES", "1"));
  }

  /** The nodes' names, node 1 first (cluster.sh's node N is the N-th). */
  List<String> nodeNames() {
    return List.of(values.getOrDefault("KUBE_LOCAL_NODE_NAMES", get("KUBE_LOCAL_NODE")).split(","));
  }

  boolean hostProcesses() {
    return "host".equals(values.get("KUBE_LOCAL_DRIVER"));
  }

  Ec2Client ec2() {
    return LocalAws.ec2(awsEndpoint());
  }

  EfsClient efs() {
    return LocalAws.efs(awsEndpoint());
  }

  /**
   * Makes the realism layer answer {@code action} calls whose parameters include {@code params} with this error
   * until {@link #clearFaults()}.
   */
  void injectFault(String service, String action, Map<String, String> params, String code, String message) {
    injectFault(service, action, params, 400, code, message, 0);
  }

  /** As above with the HTTP status, for the next {@code times} matching calls only (0: until cleared). */
  void injectFault(String service, String action, Map<String, String> params, int status, String code, String message,
      int times) {
    String body = "{\"service\":\"" + service + "\",\"action\":\"" + action + "\",\"status\":" + status
        + ",\"code\":\"" + code + "\",\"message\":\"" + message + "\",\"times\":" + times + ",\"params\":{"
        + String.join(",", params.entrySet().stream()
            .map(e -> "\"" + e.getKey() + "\":\"" + e.getValue() + "\"").toList()) + "}}";
    realism("POST", "/realism/faults", body);
  }

  void clearFaults() {
    realism("DELETE", "/realism/faults", "");
  }

  /**
   * Freezes an API for a while: the realism layer holds calls of {@code service} and {@code action} ("*": every
   * action) unanswered for {@code seconds}, then serves them as usual; it ends by itself.
   */
  void stall(String service, String action, int seconds) {
    realism("POST", "/realism/stall", "{\"service\":\"" + service + "\",\"action\":\"" + action
        + "\",\"seconds\":" + seconds + "}");
  }

  /** Makes EC2 keep the volume's attachments in {@code attaching} until {@link #releaseAttaching}. */
  void holdAttaching(String volumeId) {
    realism("POST", "/realism/ec2/attachments/hold?volumeId=" + volumeId, "");
  }

  void releaseAttaching(String volumeId) {
    realism("POST", "/realism/ec2/attachments/release?volumeId=" + volumeId, "");
  }

  private void realism(String method, String path, String body) {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(awsEndpoint().resolve(path))
          .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.ofString(body)).build(),
          HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": "
            + response.body());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("realism layer at " + awsEndpoint() + " unreachable", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** The network guard's counters: packets to the pod or service range that did not go through the bridge. */
  Map<String, Long> packetCounters() {
    String out = harness("packets").trim();
    Map<String, Long> counters = new LinkedHashMap<>();
    for (String pair : out.split("\\s+")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        counters.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
      }
    }
    if (counters.size() != 2) {
      throw new IllegalStateException("unexpected packet counters: " + out);
    }
    return counters;
  }

  /** Runs {@code cluster.sh ARGS} and returns its standard output; a failure throws with its output. */
  String harness(String... args) {
    List<String> command = new java.util.ArrayList<>(List.of("bash", get("KUBE_LOCAL_HARNESS")));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish within 5 minutes");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
