package io.awscsi.diagnose;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What diagnose reads through the Kubernetes API ({@code api-reads.txt}): the rules of the read-only ClusterRole it
 * needs. The charts grant exactly these; {@code --print-rbac} prints them as a ClusterRole for clusters without the
 * charts.
 */
final class ApiReads {

  static final String RESOURCE = "api-reads.txt";

  /** One rule: an API group ({@code ""} for the core group), a resource (or subresource), its verbs. */
  record Rule(String group, String resource, List<String> verbs) {}

  private ApiReads() {}

  static List<Rule> rules() {
    try (InputStream in = ApiReads.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the class path");
      }
      List<Rule> rules = new ArrayList<>();
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        String l = line.strip();
        if (l.isEmpty() || l.startsWith("#")) {
          continue;
        }
        String[] parts = l.split("\\s+");
        rules.add(new Rule(parts[0].equals("\"\"") ? "" : parts[0], parts[1], List.of(parts[2].split(","))));
      }
      return rules;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The rules as a ClusterRole manifest named {@code aws-csi-driver-diagnose}. */
  static String clusterRole() {
    StringBuilder out = new StringBuilder("""
        # Read-only access for `aws-csi-driver diagnose`; bind it to the users or groups who run it, e.g.
        #   kubectl create clusterrolebinding aws-csi-driver-diagnose --clusterrole=aws-csi-driver-diagnose --user=NAME
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRole
        metadata:
          name: aws-csi-driver-diagnose
        rules:
        """);
    for (Rule r : rules()) {
      out.append("  - apiGroups: [\"").append(r.group()).append("\"]\n")
          .append("    resources: [\"").append(r.resource()).append("\"]\n")
          .append("    verbs: [").append(String.join(", ", r.verbs().stream().map(v -> "\"" + v + "\"").toList()))
          .append("]\n");
    }
    return out.toString();
  }
}
