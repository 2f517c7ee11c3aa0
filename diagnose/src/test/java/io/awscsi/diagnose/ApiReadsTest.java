package io.awscsi.diagnose;

import static io.awscsi.diagnose.FakeCluster.CONTROLLER;
import static io.awscsi.diagnose.FakeCluster.DRIVER_NS;
import static io.awscsi.diagnose.FakeCluster.GP3;
import static io.awscsi.diagnose.FakeCluster.NODE;
import static io.awscsi.diagnose.FakeCluster.NS;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * diagnose reads exactly what {@code api-reads.txt} lists (the rules of the charts' diagnose ClusterRole): every
 * request of full diagnoses through the mock API server is one of the rules, and every rule is used.
 */
class ApiReadsTest {

  private static final Pattern PATH = Pattern.compile(
      "^GET /(?:api/v1|apis/([^/]+)/[^/]+)(?:/namespaces/[^/]+)?/([a-z]+)(?:/([^/?]+)(?:/([a-z]+))?)?(?:\\?.*)?$");

  /** The (group, resource, verb) a GET asks for: a name makes it get, none list; a subresource joins the resource. */
  static String permission(String request) {
    Matcher m = PATH.matcher(request);
    if (!m.matches()) {
      throw new AssertionError("not a read of a resource: " + request);
    }
    String group = m.group(1) == null ? "" : m.group(1);
    String resource = m.group(2) + (m.group(4) == null ? "" : "/" + m.group(4));
    String verb = m.group(3) == null ? "list" : "get";
    return group + " " + resource + " " + verb;
  }

  static Set<String> allowed() {
    Set<String> allowed = new LinkedHashSet<>();
    for (ApiReads.Rule r : ApiReads.rules()) {
      for (String verb : r.verbs()) {
        allowed.add(r.group() + " " + r.resource() + " " + verb);
      }
    }
    return allowed;
  }

  @Test
  void fullDiagnosesReadExactlyWhatTheClusterRoleGrants() throws InterruptedException {
    Set<String> used = new LinkedHashSet<>();
    try (FakeCluster cluster = FakeCluster.withDriver()) {
      cluster.pendingClaim("data", GP3, "1Gi");
      cluster.selectNode("data", NODE);
      var pv = cluster.bind("data", "vol-0123456789abcdef0");
      cluster.attachment(pv, NODE, true, null);
      var pod = cluster.pod("app", "data", NODE, false);
      cluster.event(pod, "Warning", "FailedMount", "MountVolume.MountDevice failed for volume \"x\" : rpc error:"
          + " code = Internal desc = mkfs.ext4 failed", "kubelet");
      cluster.log(DRIVER_NS, FakeCluster.NODE_PLUGIN, "ebs-plugin", Duration.ofHours(1), "");
      cluster.snapshot("nightly", "data", Map.of("readyToUse", false, "boundVolumeSnapshotContentName", "sc-1"));
      cluster.snapshotContent("sc-1", "nightly", "vol-0123456789abcdef0", Map.of("readyToUse", false));
      cluster.log(DRIVER_NS, CONTROLLER, "ebs-plugin", Duration.ofHours(1), "");
      cluster.groupSnapshot("db", Map.of("readyToUse", false, "boundVolumeGroupSnapshotContentName", "vgsc-1"));
      cluster.groupSnapshotContent("vgsc-1", "db", Map.of("readyToUse", false));
      cluster.requests(); // the set-up's own requests

      for (Target t : List.of(new Target.Pod(NS, "app"), new Target.Pv(pv.getMetadata().getName()),
          new Target.VolumeSnapshot(NS, "nightly"), new Target.VolumeGroupSnapshot(NS, "db"))) {
        DiagnoseCommand.diagnose(cluster.client, t, Duration.ofHours(1), Duration.ofMinutes(2), Clock.systemUTC());
      }

      for (String request : cluster.requests()) {
        used.add(permission(request));
      }
    }
    assertThat(allowed()).as("what the diagnoses read").containsAll(used);
    assertThat(used).as("every rule is needed").containsAll(allowed());
  }

  @Test
  void theClusterRoleItPrintsHasOnlyReadVerbs() {
    String role = ApiReads.clusterRole();

    assertThat(role).contains("kind: ClusterRole", "name: aws-csi-driver-diagnose", "resources: [\"pods/log\"]");
    assertThat(role).doesNotContain("\"create\"", "\"update\"", "\"patch\"", "\"delete\"", "\"*\"");
    assertThat(ApiReads.rules()).allSatisfy(r -> assertThat(r.verbs()).isSubsetOf("get", "list", "watch"));
  }
}
