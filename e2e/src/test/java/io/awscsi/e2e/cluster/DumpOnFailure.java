package io.awscsi.e2e.cluster;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * When a case fails, prints what is needed to find the cause before its namespace is deleted: the events of its
 * namespace and of the driver's, the state of its claims, volumes and attachments, the driver components' logs, and
 * on the local cluster the last lines of the kubelet's and the controller manager's logs. The failure is rethrown.
 */
final class DumpOnFailure implements TestExecutionExceptionHandler {

  private static final int LINES = 40;

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
    ClusterFixture fixture = ClusterFixture.CURRENT.get();
    if (fixture != null && !(failure instanceof org.opentest4j.TestAbortedException)) {
      try {
        System.out.println(dump(fixture, context.getDisplayName()));
      } catch (RuntimeException e) {
        System.out.println("(could not dump the cluster's state: " + e + ")");
      }
    }
    throw failure;
  }

  static String dump(ClusterFixture fixture, String what) {
    StringBuilder b = new StringBuilder("\n===== cluster state after the failure of " + what + " =====\n");
    KubernetesClient client = fixture.client;
    for (String ns : List.of(fixture.namespace, ClusterFixture.DRIVER_NAMESPACE)) {
      b.append("--- events in ").append(ns).append('\n');
      client.v1().events().inNamespace(ns).list().getItems().stream()
          .sorted(Comparator.comparing(e -> Objects.toString(e.getLastTimestamp(), Objects.toString(
              e.getEventTime() == null ? null : e.getEventTime().getTime(), ""))))
          .map(DumpOnFailure::line).forEach(l -> b.append(l).append('\n'));
    }
    b.append("--- claims\n");
    client.persistentVolumeClaims().inNamespace(fixture.namespace).list().getItems().forEach(p -> b.append(
        p.getMetadata().getName()).append(' ').append(p.getStatus().getPhase()).append(" volume=")
        .append(p.getSpec().getVolumeName()).append(" conditions=").append(p.getStatus().getConditions()).append('\n'));
    b.append("--- volume attachments\n");
    client.storage().v1().volumeAttachments().list().getItems().forEach(va -> b.append(va.getMetadata().getName())
        .append(' ').append(va.getSpec().getSource().getPersistentVolumeName()).append(" attached=")
        .append(va.getStatus() == null ? null : va.getStatus().getAttached()).append(" error=")
        .append(va.getStatus() == null ? null : va.getStatus().getAttachError()).append('\n'));
    b.append("--- pods\n");
    client.pods().inNamespace(fixture.namespace).list().getItems().forEach(p -> b.append(p.getMetadata().getName())
        .append(' ').append(p.getStatus().getPhase()).append(" node=").append(p.getSpec().getNodeName())
        .append(" conditions=").append(p.getStatus().getConditions().stream()
            .map(c -> c.getType() + "=" + c.getStatus()).toList()).append('\n'));
    for (Map.Entry<String, String> log : fixture.driver().logs(LINES).entrySet()) {
      b.append("--- log ").append(log.getKey()).append('\n').append(log.getValue()).append('\n');
    }
    if (fixture.local()) {
      Path logs = fixture.localCluster().stateDirectory().resolve("logs");
      // Every node's kubelet (kubelet.log, and kubelet-N.log of node N in multi-node mode).
      List<String> components = new java.util.ArrayList<>(List.of("kubelet"));
      for (int n = 2; n <= fixture.localCluster().nodeCount(); n++) {
        components.add("kubelet-" + n);
      }
      components.addAll(List.of("kube-controller-manager", "snapshot-controller", "aws"));
      for (String component : components) {
        b.append("--- log ").append(component).append('\n').append(tail(logs.resolve(component + ".log"))).append('\n');
      }
    }
    return b.append("===== end of the cluster state =====\n").toString();
  }

  private static String line(Event e) {
    return String.format("%s %s %s/%s %s: %s", e.getType(), e.getReason(), e.getInvolvedObject().getKind(),
        e.getInvolvedObject().getName(), e.getSource() == null ? "" : e.getSource().getComponent(), e.getMessage());
  }

  static String tail(Path file) {
    try {
      List<String> all = Files.readAllLines(file);
      return String.join("\n", all.subList(Math.max(0, all.size() - LINES), all.size()));
    } catch (IOException | RuntimeException e) {
      return "(cannot read " + file + ": " + e.getMessage() + ")";
    }
  }
}
