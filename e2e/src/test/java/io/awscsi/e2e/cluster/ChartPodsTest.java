package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The charts installed for real as pods on the local cluster (pods mode, {@code KUBE_LOCAL_DRIVER=chart}): every
 * object of each release's manifest exists as rendered (RBAC rules compared), every pod is Ready through its own
 * probes, two EBS controller replicas hold the Leases under their pod names, the node plugins are registered with
 * the kubelet; and after a lifecycle the controller and node pods' Prometheus endpoints serve every metric name
 * docs/install.md lists, with sane values. Skipped on host processes and on EKS (the chart install there is the
 * suite's own).
 */
class ChartPodsTest extends ClusterCase {

  @BeforeEach
  void podsModeOnly() {
    assumeTrue(ChartRelease.podsMode(cluster), "the local cluster runs the driver from the charts (make test-chart-pods)");
  }

  @Test
  void releasesAreInstalledAsRenderedWithEveryPodReadyThroughItsProbes() {
    Steps steps = new Steps("chart install as pods");
    var client = cluster.client;
    for (ChartRelease release : List.of(ChartRelease.ebs(cluster.localCluster()),
        ChartRelease.efs(cluster.localCluster()))) {
      List<HasMetadata> objects = steps.step(release.name() + ": every object of the manifest exists as rendered",
          () -> {
            List<HasMetadata> rendered = release.manifest(client);
            for (HasMetadata o : rendered) {
              HasMetadata live = client.resource(o).get();
              assertThat(live).as("%s %s of %s", o.getKind(), o.getMetadata().getName(), release.name()).isNotNull();
              if (o instanceof ClusterRole r) {
                assertThat(((ClusterRole) live).getRules()).as("rules of ClusterRole %s", o.getMetadata().getName())
                    .isEqualTo(r.getRules());
              } else if (o instanceof Role r) {
                assertThat(((Role) live).getRules()).as("rules of Role %s", o.getMetadata().getName())
                    .isEqualTo(r.getRules());
              }
            }
            return rendered;
          });
      Set<String> kinds = objects.stream().map(HasMetadata::getKind).collect(Collectors.toCollection(TreeSet::new));
      assertThat(kinds).as("kinds of %s", release.name()).contains("Deployment", "DaemonSet", "ServiceAccount",
          "ClusterRole", "ClusterRoleBinding", "PodDisruptionBudget", "StorageClass");
      steps.step(release.name() + ": every pod Ready through its probes", () -> {
        for (HasMetadata o : objects) {
          if (o instanceof Deployment d) {
            Deployment live = client.apps().deployments().inNamespace(ClusterFixture.DRIVER_NAMESPACE)
                .withName(d.getMetadata().getName()).get();
            assertThat(live.getStatus().getReadyReplicas()).as("ready replicas of %s", d.getMetadata().getName())
                .isEqualTo(2);
            assertThat(live.getSpec().getTemplate().getSpec().getHostNetwork()).as("controller on the pod network")
                .isNotEqualTo(Boolean.TRUE);
          } else if (o instanceof DaemonSet ds) {
            DaemonSet live = client.apps().daemonSets().inNamespace(ClusterFixture.DRIVER_NAMESPACE)
                .withName(ds.getMetadata().getName()).get();
            assertThat(live.getStatus().getNumberReady()).as("ready pods of %s", ds.getMetadata().getName())
                .isEqualTo(live.getStatus().getDesiredNumberScheduled()).isPositive();
          }
        }
        List<Pod> pods = release.pods(client);
        assertThat(pods).as("pods of %s", release.name()).hasSize(3);
        for (Pod p : pods) {
          assertThat(Readiness.isPodReady(p)).as("pod %s Ready", p.getMetadata().getName()).isTrue();
          Container plugin = p.getSpec().getContainers().getFirst();
          assertThat(plugin.getName()).endsWith("-plugin");
          assertThat(plugin.getReadinessProbe()).as("readiness probe of %s", p.getMetadata().getName()).isNotNull();
          assertThat(plugin.getLivenessProbe()).as("liveness probe of %s", p.getMetadata().getName()).isNotNull();
        }
        return pods.size() + " pods";
      });
    }
    steps.step("CSIDriver objects, classes", () -> {
      for (String driver : List.of("ebs.csi.aws.com", "efs.csi.aws.com")) {
        assertThat(client.storage().v1().csiDrivers().withName(driver).get()).as("CSIDriver %s", driver).isNotNull();
      }
      assertThat(client.storage().v1().storageClasses().withName(ClusterFixture.GP3).get().getProvisioner())
          .isEqualTo("ebs.csi.aws.com");
      assertThat(client.storage().v1().storageClasses().withName(ClusterFixture.EFS_CLASS).get().getProvisioner())
          .isEqualTo("efs.csi.aws.com");
      assertThat(client.genericKubernetesResources("snapshot.storage.k8s.io/v1", "VolumeSnapshotClass")
          .withName(ClusterFixture.SNAPSHOT_CLASS).get()).as("VolumeSnapshotClass ebs-vsc").isNotNull();
    });
    steps.step("both node plugins registered with the kubelet (CSINode)", () -> {
      for (var node : cluster.schedulableNodes()) {
        cluster.awaitDriverRegistered(node.getMetadata().getName(), "ebs.csi.aws.com");
        cluster.awaitDriverRegistered(node.getMetadata().getName(), "efs.csi.aws.com");
      }
    });
    steps.step("every EBS Lease held by one of the two controller pods, by its pod name", () -> {
      Set<String> controllers = client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE)
          .withLabel("app", "ebs-csi-controller").list().getItems().stream()
          .filter(p -> p.getMetadata().getDeletionTimestamp() == null).map(p -> p.getMetadata().getName())
          .collect(Collectors.toSet());
      assertThat(controllers).hasSize(2);
      for (String lease : LeaderElectionTest.EBS_LEASES) {
        Eventually.await("lease " + lease + " held by a controller pod", Duration.ofMinutes(1),
            () -> controllers.contains(holder(lease)));
      }
      return LeaderElectionTest.EBS_LEASES.stream().map(ChartPodsTest.this::holder).distinct().toList();
    });
    steps.summary();
  }

  @Test
  void controllerAndNodePodsServeTheReadmesMetricsAfterALifecycle() {
    Steps steps = new Steps("metrics of the chart's pods");
    steps.step("EBS: WaitForFirstConsumer volume written and read by a pod", () -> {
      cluster.createPvc("ebs", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
      cluster.startPod("ebs-writer", "ebs", "echo hello > " + ClusterFixture.MOUNT + "/f && sync && sleep 86400",
          null);
      assertThat(cluster.exec("ebs-writer", "cat " + ClusterFixture.MOUNT + "/f").trim()).isEqualTo("hello");
    });
    steps.step("EFS: an access-point volume mounted by a pod", () -> {
      cluster.createPvc("efs", ClusterFixture.EFS_CLASS, "1Gi", "ReadWriteMany");
      cluster.startPod("efs-writer", "efs", "echo hello > " + ClusterFixture.MOUNT + "/f && sleep 86400", null);
    });
    // The CSI names and the AWS API names (upstream's), and the process and JVM basics (docs/install.md, "Command
    // line").
    List<String> common = List.of("csi_operations_total", "csi_operation_duration_seconds_count",
        "csi_operation_duration_seconds_sum", "csi_operation_duration_seconds_bucket", "process_cpu_seconds_total",
        "process_resident_memory_bytes", "process_start_time_seconds", "process_open_fds", "jvm_threads_live",
        "jvm_memory_heap_used_bytes");
    Map<String, Map<String, List<Sample>>> scraped = new LinkedHashMap<>();
    steps.step("every controller and node pod scraped through the API server's pod proxy", () -> {
      for (Pod p : cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE).list().getItems()) {
        String app = p.getMetadata().getLabels().getOrDefault("app", "");
        Integer port = switch (app) {
          case "ebs-csi-controller", "efs-csi-controller" -> 3301;
          case "ebs-csi-node" -> 3302;
          case "efs-csi-node" -> 3312;
          default -> null;
        };
        if (port == null || p.getMetadata().getDeletionTimestamp() != null) {
          continue;
        }
        String text = cluster.client.raw(cluster.client.getMasterUrl() + "api/v1/namespaces/"
            + ClusterFixture.DRIVER_NAMESPACE + "/pods/" + p.getMetadata().getName() + ":" + port + "/proxy/metrics");
        assertThat(text).as("/metrics of %s", p.getMetadata().getName()).isNotBlank();
        scraped.put(app + "/" + p.getMetadata().getName(), parse(text));
      }
      return scraped.keySet().toString();
    });
    steps.step("names and values", () -> {
      assertThat(scraped.keySet().stream().map(k -> k.substring(0, k.indexOf('/'))).distinct())
          .containsExactlyInAnyOrder("ebs-csi-controller", "efs-csi-controller", "ebs-csi-node", "efs-csi-node");
      double now = System.currentTimeMillis() / 1000.0;
      for (var entry : scraped.entrySet()) {
        var m = entry.getValue();
        assertThat(m.keySet()).as("metric names of %s", entry.getKey()).containsAll(common);
        assertThat(one(m, "process_resident_memory_bytes")).as("RSS of %s", entry.getKey())
            .isBetween(8.0 * 1024 * 1024, 2048.0 * 1024 * 1024);
        assertThat(one(m, "process_start_time_seconds")).isBetween(now - 86400, now + 60);
        assertThat(one(m, "jvm_threads_live")).isPositive();
        for (Sample s : m.get("csi_operations_total")) {
          assertThat(s.labels()).containsKeys("method", "grpc_code");
          assertThat(s.value()).isGreaterThanOrEqualTo(0);
        }
      }
      // What the lifecycle called, on some replica of each (the leaders did the work).
      assertThat(sum(scraped, "ebs-csi-controller", "csi_operations_total", "CreateVolume")).isPositive();
      assertThat(sum(scraped, "ebs-csi-controller", "csi_operations_total", "ControllerPublishVolume")).isPositive();
      assertThat(sum(scraped, "ebs-csi-controller", "aws_ebs_csi_api_request_duration_seconds_count", "CreateVolume"))
          .isPositive();
      assertThat(sum(scraped, "efs-csi-controller", "csi_operations_total", "CreateVolume")).isPositive();
      assertThat(sum(scraped, "efs-csi-controller", "aws_efs_csi_api_request_duration_seconds_count",
          "CreateAccessPoint")).isPositive();
      assertThat(sum(scraped, "ebs-csi-node", "csi_operations_total", "NodeStageVolume")).isPositive();
      assertThat(sum(scraped, "ebs-csi-node", "csi_operations_total", "NodePublishVolume")).isPositive();
      assertThat(sum(scraped, "efs-csi-node", "csi_operations_total", "NodePublishVolume")).isPositive();
      for (String node : List.of("ebs-csi-node", "efs-csi-node")) {
        assertThat(sum(scraped, node, "csi_kubelet_registration_registered", null)).as("registered, %s", node)
            .isEqualTo(1.0);
      }
      // Histogram sanity: count equals the +Inf bucket for every method/code.
      for (var m : scraped.values()) {
        for (Sample c : m.getOrDefault("csi_operation_duration_seconds_count", List.of())) {
          double inf = m.get("csi_operation_duration_seconds_bucket").stream()
              .filter(b -> "+Inf".equals(b.labels().get("le")) && b.labels().get("method").equals(c.labels()
                  .get("method")) && b.labels().get("grpc_code").equals(c.labels().get("grpc_code")))
              .mapToDouble(Sample::value).sum();
          assertThat(inf).as("+Inf bucket of %s", c.labels()).isEqualTo(c.value());
        }
      }
    });
    steps.summary();
  }

  private String holder(String lease) {
    var l = cluster.client.resources(io.fabric8.kubernetes.api.model.coordination.v1.Lease.class)
        .inNamespace(ClusterFixture.DRIVER_NAMESPACE).withName(lease).get();
    return l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
  }

  record Sample(Map<String, String> labels, double value) {}

  private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+)");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** Prometheus text format: name to samples. */
  static Map<String, List<Sample>> parse(String text) {
    Map<String, List<Sample>> out = new LinkedHashMap<>();
    for (String line : text.lines().toList()) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      Matcher m = LINE.matcher(line);
      assertThat(m.find()).as("a Prometheus sample line: %s", line).isTrue();
      Map<String, String> labels = new LinkedHashMap<>();
      if (m.group(3) != null) {
        Matcher l = LABEL.matcher(m.group(3));
        while (l.find()) {
          labels.put(l.group(1), l.group(2));
        }
      }
      String v = m.group(4);
      double value = switch (v) {
        case "+Inf" -> Double.POSITIVE_INFINITY;
        case "-Inf" -> Double.NEGATIVE_INFINITY;
        default -> Double.parseDouble(v);
      };
      assertThat(Double.isNaN(value)).as("NaN in %s", line).isFalse();
      out.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(new Sample(labels, value));
    }
    return out;
  }

  private static double one(Map<String, List<Sample>> m, String name) {
    assertThat(m.get(name)).as(name).hasSize(1);
    return m.get(name).getFirst().value();
  }

  /** The sum over the pods of {@code app} of {@code name}'s samples whose method or request label is {@code what}. */
  private static double sum(Map<String, Map<String, List<Sample>>> scraped, String app, String name, String what) {
    double total = 0;
    boolean present = false;
    for (var e : scraped.entrySet()) {
      if (!e.getKey().startsWith(app + "/")) {
        continue;
      }
      for (Sample s : e.getValue().getOrDefault(name, List.of())) {
        present = true;
        if (what == null || what.equals(s.labels().get("method")) || what.equals(s.labels().get("request"))) {
          total += s.value();
        }
      }
    }
    assertThat(present).as("%s served by %s", name, app).isTrue();
    return total;
  }
}
