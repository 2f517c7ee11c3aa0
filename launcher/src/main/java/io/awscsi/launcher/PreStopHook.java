package io.awscsi.launcher;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code aws-csi-driver pre-stop-hook}: run as the EBS node container's preStop. When the node is being drained (or
 * is gone), it waits until every VolumeAttachment of this node is deleted, so volumes detach cleanly instead of
 * waiting out Kubernetes' 6-minute force detach. As upstream, it does nothing on a plain pod restart.
 */
final class PreStopHook {

  /** Taints that mean the node is being drained or removed (kubectl drain, cluster-autoscaler, Karpenter). */
  static final Set<String> DRAIN_TAINTS = Set.of("node.kubernetes.io/unschedulable", "ToBeDeletedByClusterAutoscaler",
      "karpenter.sh/disrupted", "karpenter.sh/disruption");

  private PreStopHook() {}

  static int run(Map<String, String> env, PrintStream err) {
    String nodeName = env.getOrDefault("CSI_NODE_NAME", "");
    if (nodeName.isEmpty()) {
      err.println("pre-stop-hook: CSI_NODE_NAME is not set; nothing to wait for");
      return 0;
    }
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      return waitForDetach(client, nodeName, Duration.ofSeconds(2), err);
    } catch (KubernetesClientException e) {
      err.println("pre-stop-hook: cannot reach the Kubernetes API (" + e.getMessage() + "); not waiting");
      return 0;
    }
  }

  static int waitForDetach(KubernetesClient client, String nodeName, Duration poll, PrintStream err) {
    Node node = client.nodes().withName(nodeName).get();
    if (node != null && !draining(node)) {
      err.println("pre-stop-hook: node " + nodeName + " is not being drained; not waiting");
      return 0;
    }
    // kubelet's terminationGracePeriodSeconds bounds the wait from outside.
    Instant started = Instant.now();
    while (true) {
      List<String> left = client.storage().v1().volumeAttachments().list().getItems().stream()
          .filter(va -> nodeName.equals(va.getSpec().getNodeName()))
          .filter(va -> "ebs.csi.aws.com".equals(va.getSpec().getAttacher()))
          .map(va -> va.getMetadata().getName()).toList();
      if (left.isEmpty()) {
        err.println("pre-stop-hook: all volumes of " + nodeName + " detached after "
            + Duration.between(started, Instant.now()).toSeconds() + " s");
        return 0;
      }
      err.println("pre-stop-hook: waiting for " + left.size() + " VolumeAttachment(s) on " + nodeName);
      try {
        Thread.sleep(poll);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 0;
      }
    }
  }

  static boolean draining(Node node) {
    if (Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
      return true;
    }
    List<Taint> taints = node.getSpec().getTaints();
    return taints != null && taints.stream().anyMatch(t -> DRAIN_TAINTS.contains(t.getKey()));
  }
}
