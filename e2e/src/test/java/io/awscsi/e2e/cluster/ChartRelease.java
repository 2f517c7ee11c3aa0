package io.awscsi.e2e.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One Helm release of the driver on the local cluster in pods mode ({@code KUBE_LOCAL_DRIVER=chart},
 * e2e/kube-local/driver-chart.sh): its chart, the values it was installed with, and helm run against it.
 */
record ChartRelease(LocalCluster cluster, String name, String driver) {

  static final String EBS = "aws-ebs-csi-driver";
  static final String EFS = "aws-efs-csi-driver";

  static ChartRelease ebs(LocalCluster cluster) {
    return new ChartRelease(cluster, EBS, "ebs");
  }

  static ChartRelease efs(LocalCluster cluster) {
    return new ChartRelease(cluster, EFS, "efs");
  }

  /** Whether the local cluster runs the driver from the charts (not as host processes). */
  static boolean podsMode(ClusterFixture fixture) {
    return fixture.local() && !fixture.localCluster().hostProcesses()
        && fixture.localCluster().values().containsKey("KUBE_LOCAL_RELEASES");
  }

  Path chart() {
    return Path.of(cluster.get("KUBE_LOCAL_CHARTS"), name);
  }

  List<String> valuesArgs() {
    List<String> args = new ArrayList<>();
    for (String f : cluster.get("KUBE_LOCAL_VALUES_" + driver.toUpperCase()).split(",")) {
      args.addAll(List.of("-f", f));
    }
    return args;
  }

  /** {@code helm upgrade} of this release with its values and {@code extra}, waiting for it. */
  String upgrade(String... extra) {
    List<String> args = new ArrayList<>(List.of("upgrade", name, chart().toString(), "-n",
        ClusterFixture.DRIVER_NAMESPACE, "--wait", "--timeout", "5m"));
    args.addAll(valuesArgs());
    args.addAll(List.of(extra));
    return helm(args);
  }

  String install(String... extra) {
    List<String> args = new ArrayList<>(List.of("install", name, chart().toString(), "-n",
        ClusterFixture.DRIVER_NAMESPACE, "--wait", "--timeout", "5m"));
    args.addAll(valuesArgs());
    args.addAll(List.of(extra));
    return helm(args);
  }

  String helm(String... args) {
    return helm(List.of(args));
  }

  String helm(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(cluster.get("KUBE_LOCAL_HELM"));
    command.addAll(args);
    return run(command, 8);
  }

  /** The objects of the release's current revision, as helm rendered them. */
  List<HasMetadata> manifest(KubernetesClient client) {
    String yaml = helm("get", "manifest", name, "-n", ClusterFixture.DRIVER_NAMESPACE);
    return client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
  }

  /** The release's pods that are not being deleted. */
  List<Pod> pods(KubernetesClient client) {
    return client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE).withLabel("app.kubernetes.io/instance", name)
        .list().getItems().stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
  }

  /** {@code ctr images tag} in the node's containerd: the same image under another tag (an "upgrade" image). */
  void tagImage(String from, String to) {
    run(List.of("ctr", "--address", cluster.get("KUBE_LOCAL_CONTAINERD"), "-n", "k8s.io", "images", "tag", "--force",
        from, to), 1);
  }

  static String run(List<String> command, int minutes) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " did not finish within " + minutes + " min");
      }
      String text = new String(out, StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new AssertionError(String.join(" ", command) + " exited " + p.exitValue() + ":\n" + text);
      }
      return text;
    } catch (IOException e) {
      throw new AssertionError("cannot run " + command.getFirst() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted: " + command, e);
    }
  }
}
