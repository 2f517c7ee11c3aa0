package io.awscsi.e2e.cluster;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.client.KubernetesClient;
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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The faults {@link DiagnoseTest} causes: EC2 answers from the realism layer in front of emulated AWS (its
 * {@code /realism/faults} and {@code /realism/ec2/attachments/hold} endpoints, on the local cluster of
 * e2e/kube-local, which {@code E2E_LOCAL_CLUSTER} describes), and the node plugin taken off a node: the chart's
 * DaemonSet pod (kept off every node by a nodeSelector no node has), or on the local cluster's host processes its
 * hostpod stopped and started again by the harness.
 */
final class DiagnoseFaults {

  static final String NODE_DAEMONSET = "ebs-csi-node";
  private static final String OFF_LABEL = "aws-csi-e2e/no-node-plugin";

  private final Map<String, String> local;

  private DiagnoseFaults(Map<String, String> local) {
    this.local = local;
  }

  static DiagnoseFaults fromEnvironment(Map<String, String> env) {
    String file = env.get("E2E_LOCAL_CLUSTER");
    if (file == null || file.isBlank()) {
      return new DiagnoseFaults(Map.of());
    }
    Map<String, String> values = new LinkedHashMap<>();
    try {
      for (String line : Files.readAllLines(Path.of(file))) {
        int eq = line.indexOf('=');
        if (eq > 0 && !line.startsWith("#")) {
          values.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the local cluster's description " + file, e);
    }
    return new DiagnoseFaults(Map.copyOf(values));
  }

  /** The realism layer can be driven: the local cluster's emulated AWS. */
  boolean canInjectEc2Faults() {
    return local.containsKey("AWS_ENDPOINT_URL");
  }

  /** The kubeconfig the local cluster's description names, for diagnose's {@code --kubeconfig}. */
  Optional<String> kubeconfig() {
    return Optional.ofNullable(local.get("KUBECONFIG"));
  }

  private boolean hostProcesses() {
    return "host".equals(local.get("KUBE_LOCAL_DRIVER"));
  }

  /** EC2 answers {@code action} calls whose parameters include {@code params} with this error, until cleared. */
  void ec2Fault(String action, Map<String, String> params, String code, String message) {
    StringBuilder body = new StringBuilder("{\"service\":\"ec2\",\"action\":\"").append(action)
        .append("\",\"status\":400,\"code\":\"").append(code).append("\",\"message\":\"").append(message)
        .append("\",\"times\":0,\"params\":{");
    body.append(String.join(",", params.entrySet().stream()
        .map(e -> "\"" + e.getKey() + "\":\"" + e.getValue() + "\"").toList())).append("}}");
    realism("POST", "/realism/faults", body.toString());
  }

  void clearEc2Faults() {
    if (canInjectEc2Faults()) {
      realism("DELETE", "/realism/faults", "");
    }
  }

  /** EC2 keeps attachments of the volume in {@code attaching} until released. */
  void holdAttaching(String volumeId) {
    realism("POST", "/realism/ec2/attachments/hold?volumeId=" + volumeId, "");
  }

  void releaseAttaching(String volumeId) {
    realism("POST", "/realism/ec2/attachments/release?volumeId=" + volumeId, "");
  }

  private void realism(String method, String path, String body) {
    URI endpoint = URI.create(local.get("AWS_ENDPOINT_URL"));
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(endpoint.resolve(path))
          .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.ofString(body)).build(),
          HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": "
            + response.body());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("realism layer at " + endpoint + " unreachable", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Takes the EBS node plugin off {@code node}; returns once it is gone. */
  void stopNodePlugin(KubernetesClient client, String node) {
    if (hostProcesses()) {
      Path pidFile = Path.of(local.get("KUBE_LOCAL_HOSTPOD_PIDS"), "hostpod-" + NODE_DAEMONSET + "-" + node + ".pid");
      long pid;
      try {
        pid = Long.parseLong(Files.readString(pidFile).trim());
      } catch (IOException | NumberFormatException e) {
        throw new AssertionError("no hostpod of the node plugin (" + pidFile + ")", e);
      }
      // SIGKILL, as a crashed plugin: its registration is left behind and the kubelet cannot reach it.
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      Eventually.await("hostpod " + pid + " of the node plugin gone", Duration.ofSeconds(30),
          () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
      return;
    }
    client.apps().daemonSets().inNamespace(ClusterFixture.DRIVER_NAMESPACE).withName(NODE_DAEMONSET).edit(ds -> {
      var spec = ds.getSpec().getTemplate().getSpec();
      if (spec.getNodeSelector() == null) {
        spec.setNodeSelector(new LinkedHashMap<>());
      }
      spec.getNodeSelector().put(OFF_LABEL, "true");
      return ds;
    });
    Eventually.await("no " + NODE_DAEMONSET + " pod on " + node, Duration.ofMinutes(3), () ->
        client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE).withLabel("app", NODE_DAEMONSET).list()
            .getItems().stream().noneMatch(p -> node.equals(p.getSpec().getNodeName())));
  }

  /** Puts the node plugin back on {@code node}; returns once the kubelet has it registered again. */
  void restoreNodePlugin(KubernetesClient client, String node) {
    if (hostProcesses()) {
      harness("hostpod-start", NODE_DAEMONSET + "-" + node);
    } else {
      DaemonSet ds = client.apps().daemonSets().inNamespace(ClusterFixture.DRIVER_NAMESPACE).withName(NODE_DAEMONSET)
          .get();
      var selector = ds == null ? null : ds.getSpec().getTemplate().getSpec().getNodeSelector();
      if (selector != null && selector.containsKey(OFF_LABEL)) {
        client.apps().daemonSets().inNamespace(ClusterFixture.DRIVER_NAMESPACE).withName(NODE_DAEMONSET).edit(d -> {
          d.getSpec().getTemplate().getSpec().getNodeSelector().remove(OFF_LABEL);
          return d;
        });
      }
    }
    Eventually.await("ebs.csi.aws.com registered on " + node + " again", Duration.ofMinutes(3), () -> {
      CSINode csiNode = client.storage().v1().csiNodes().withName(node).get();
      return csiNode != null && csiNode.getSpec().getDrivers().stream()
          .anyMatch(d -> d.getName().equals("ebs.csi.aws.com"));
    });
  }

  private void harness(String... args) {
    var command = new java.util.ArrayList<>(java.util.List.of("bash", local.get("KUBE_LOCAL_HARNESS")));
    command.addAll(java.util.List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
