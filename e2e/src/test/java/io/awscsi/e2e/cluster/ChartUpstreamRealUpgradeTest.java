package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 26, proof (c) and item 10, live for each driver: upstream's REAL chart (UPSTREAM_CHARTS, else
 * ../shared/reference/upstream-charts; read in place, never copied) installed with only what the local cluster needs
 * changed, volumes made under it, then {@code helm upgrade} in place to this chart with {@code --reuse-values}, the
 * old volume mounted again with its data and a new one made (EBS: expanded and snapshotted), then {@code helm
 * rollback} to upstream's revision with both volumes attaching and mounting again (EBS: expanding and snapshotting),
 * then {@code helm upgrade} to this chart with the same values file upstream's release was installed with. This
 * chart's release is installed again at the end, so the suite goes on with it.
 *
 * <p>What "only what the local cluster needs" is: the image references (the driver: the local emulated test image,
 * since no Go driver image runs here; each sidecar: the local build of the same kubernetes-csi program), and the
 * local cluster's runtime values of e2e/kube-local/driver-chart.sh (the emulation's env, volumes and endpoints, the
 * kubelet directory, privileged root controllers for the loop backend, the EBS node on the host network, the storage
 * and snapshot classes). The node's {@code --kubelet-dir} goes in through the emulation's env: upstream's chart does
 * not pass it, and this cluster's kubelet directory is not /var/lib/kubelet. Upstream's chart needs
 * node-driver-registrar and livenessprobe, which the Go module proxy does not serve: their images are taken from
 * KUBE_LOCAL_IMAGES (csi-node-driver-registrar.tar, livenessprobe.tar; helm/README.md says how they are built) and the
 * case is skipped, saying so, without them.
 */
class ChartUpstreamRealUpgradeTest extends ClusterCase {

  /** Where upstream's sidecars built from source are tagged (hack/image/build-static-image.sh --repo). */
  static final String REGISTRAR_IMAGE = "csi-node-driver-registrar";
  static final String LIVENESS_IMAGE = "livenessprobe";
  static final String REGISTRAR_TAG = "v2.17.0";
  static final String LIVENESS_TAG = "v2.19.0";

  /**
   * The EBS volumes' class, made by upstream's release: xfs, whose online growth this machine's root can do (ext4's
   * needs CAP_SYS_RESOURCE, see EbsVolumeTest).
   */
  static final String EBS_XFS_CLASS = "upstream-gp3-xfs";

  @BeforeEach
  void podsModeOnly() {
    assumeTrue(ChartRelease.podsMode(cluster), "the local cluster runs the driver from the charts (make test-chart-pods)");
  }

  private static Path upstreamChart(String release) {
    String dir = System.getenv("UPSTREAM_CHARTS");
    Path root = dir == null || dir.isBlank() ? Path.of("..", "..", "shared", "reference", "upstream-charts")
        .toAbsolutePath().normalize() : Path.of(dir);
    return root.resolve("charts").resolve(release);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"ebs", "efs"})
  void upstreamsRealChartUpgradesInPlaceAndRollsBackWithItsVolumes(String driver) throws IOException {
    LocalCluster local = cluster.localCluster();
    ChartRelease release = driver.equals("ebs") ? ChartRelease.ebs(local) : ChartRelease.efs(local);
    Path upstream = upstreamChart(release.name());
    assumeTrue(Files.isDirectory(upstream), "upstream's chart at " + upstream + " (set UPSTREAM_CHARTS)");
    Path images = Path.of(local.get("KUBE_LOCAL_IMAGES"));
    for (String image : List.of(REGISTRAR_IMAGE, LIVENESS_IMAGE)) {
      assumeTrue(Files.isRegularFile(images.resolve(image + ".tar")), "upstream's chart needs " + image
          + " (not served by the Go module proxy): build it from its sources into " + images + " (helm/README.md)");
    }
    boolean ebs = driver.equals("ebs");
    String driverName = driver + ".csi.aws.com";
    String sc = ebs ? EBS_XFS_CLASS : ClusterFixture.EFS_CLASS;
    String access = ebs ? "ReadWriteOnce" : "ReadWriteMany";
    String ns = ClusterFixture.DRIVER_NAMESPACE;
    Path values = Files.createTempFile("upstream-" + driver + "-values", ".json");
    Files.writeString(values, cluster.client.getKubernetesSerialization().asJson(upstreamValues(release)));
    Steps steps = new Steps("upstream " + release.name() + " chart: upgrade and rollback");
    String before = ClusterFixture.token();
    String after = ClusterFixture.token();
    try {
      steps.step("upstream's sidecar images imported", () -> {
        for (String image : List.of(REGISTRAR_IMAGE, LIVENESS_IMAGE)) {
          ChartRelease.run(List.of("ctr", "--address", local.get("KUBE_LOCAL_CONTAINERD"), "-n", "k8s.io", "images",
              "import", images.resolve(image + ".tar").toString()), 2);
        }
      });
      steps.step("this chart's release uninstalled", () -> {
        release.helm("uninstall", release.name(), "-n", ns, "--wait", "--timeout", "3m");
        Eventually.await("no pod of the release", Duration.ofMinutes(2), () -> release.pods(cluster.client).isEmpty());
      });
      steps.step("upstream's real chart installed (rev 1): pods Ready, registered", () -> {
        release.helm("install", release.name(), upstream.toString(), "-n", ns, "-f", values.toString(), "--wait",
            "--timeout", "5m");
        awaitPods(release, false);
        awaitRegistered(driverName);
      });
      steps.step("volume 'before' made under upstream's chart, written", () -> {
        cluster.createPvc("before", sc, "1Gi", access);
        cluster.startSleeper("before-1", "before");
        cluster.exec("before-1", "echo " + before + " > " + ClusterFixture.MOUNT + "/f && sync");
      });
      steps.step("helm upgrade to this chart --reuse-values (rev 2): pods Ready, registered", () -> {
        release.helm("upgrade", release.name(), release.chart().toString(), "-n", ns, "--reuse-values", "--wait",
            "--timeout", "5m");
        awaitPods(release, true);
        awaitRegistered(driverName);
      });
      steps.step("'before' mounts again under this chart with its data", () -> remount("before-1", "before-2",
          "before", before));
      steps.step("volume 'after' made under this chart, written", () -> {
        cluster.createPvc("after", sc, "1Gi", access);
        cluster.startSleeper("after-1", "after");
        cluster.exec("after-1", "echo " + after + " > " + ClusterFixture.MOUNT + "/f && sync");
      });
      if (ebs) {
        steps.step("'before' expanded to 2Gi and snapshotted under this chart", () -> {
          expand("before", "2Gi");
          return snapshot("before-snap-ours", "before");
        });
      }
      steps.step("helm rollback to upstream's revision 1 (rev 3): pods Ready, registered", () -> {
        release.helm("rollback", release.name(), "1", "-n", ns, "--wait", "--timeout", "5m");
        awaitPods(release, false);
        awaitRegistered(driverName);
      });
      steps.step("both volumes attach and mount again under upstream's chart with their data", () -> {
        remount("before-2", "before-3", "before", before);
        remount("after-1", "after-2", "after", after);
      });
      if (ebs) {
        steps.step("'after' expanded to 2Gi and snapshotted under upstream's chart", () -> {
          expand("after", "2Gi");
          return snapshot("after-snap-upstream", "after");
        });
      }
      steps.step("helm upgrade to this chart with the same values file (rev 4): pods Ready, registered", () -> {
        release.helm("upgrade", release.name(), release.chart().toString(), "-n", ns, "-f", values.toString(),
            "--wait", "--timeout", "5m");
        awaitPods(release, true);
        awaitRegistered(driverName);
      });
      steps.step("both volumes mount again under this chart with their data", () -> {
        remount("before-3", "before-4", "before", before);
        remount("after-2", "after-3", "after", after);
      });
      steps.step("helm history: upstream's chart, this chart, rollback, this chart", () -> {
        String history = release.helm("history", release.name(), "-n", ns);
        assertThat(history).contains("Rollback to 1");
        return history.lines().skip(1).map(l -> l.replaceAll("\\s+", " ")).toList().toString();
      });
    } finally {
      steps.step("this chart's release installed again with the suite's values", () -> {
        release.helm("uninstall", release.name(), "-n", ns, "--wait", "--timeout", "3m");
        Eventually.await("no pod of the release", Duration.ofMinutes(2), () -> release.pods(cluster.client).isEmpty());
        release.install();
        awaitPods(release, true);
        awaitRegistered(driverName);
      });
      Files.deleteIfExists(values);
    }
    steps.summary();
  }

  /**
   * The values upstream's release is installed with: the local cluster's runtime values (driver-chart.sh) with the
   * node's {@code --kubelet-dir} added to the emulation's env, and what the cluster needs that values-pods-*.yaml says
   * in this chart's terms, in upstream's (upstream's sidecars from the local images; no key upstream does not have).
   */
  @SuppressWarnings("unchecked")
  private Map<String, Object> upstreamValues(ChartRelease release) throws IOException {
    String[] files = release.cluster().get("KUBE_LOCAL_VALUES_" + release.driver().toUpperCase()).split(",");
    Map<String, Object> runtime = cluster.client.getKubernetesSerialization().unmarshal(
        Files.readString(Path.of(files[files.length - 1])), Map.class);
    Map<String, Object> node = (Map<String, Object>) runtime.get("node");
    String kubeletDir = "--kubelet-dir=" + node.get("kubeletPath");
    List<Map<String, Object>> env = new ArrayList<>((List<Map<String, Object>>) node.getOrDefault("env", List.of()));
    boolean found = false;
    for (Map<String, Object> var : env) {
      if ("AWS_CSI_EMULATION_ARGS".equals(var.get("name"))) {
        var.put("value", var.get("value") + " " + kubeletDir);
        found = true;
      }
    }
    if (!found) {
      env.add(Map.of("name", "AWS_CSI_EMULATION_ARGS", "value", kubeletDir));
    }
    node.put("env", env);
    String repo = local().get("KUBE_LOCAL_DRIVER_IMAGE");
    repo = repo.substring(0, repo.lastIndexOf(':'));
    String sidecarRepo = repo.substring(0, repo.lastIndexOf('/'));
    Map<String, Object> never = Map.of("pullPolicy", "Never");
    Map<String, Object> rootPrivileged = Map.of(
        "securityContext", Map.of("runAsNonRoot", false, "runAsUser", 0, "runAsGroup", 0, "fsGroup", 0),
        "containerSecurityContext", nullable(Map.of("privileged", true, "allowPrivilegeEscalation", true,
            "readOnlyRootFilesystem", true), "capabilities", "seccompProfile"));
    Map<String, Object> sidecars = new LinkedHashMap<>();
    sidecars.put("livenessProbe", Map.of("image", Map.of("repository", sidecarRepo + "/" + LIVENESS_IMAGE,
        "tag", LIVENESS_TAG, "pullPolicy", "Never")));
    sidecars.put("nodeDriverRegistrar", Map.of("image", Map.of("repository", sidecarRepo + "/" + REGISTRAR_IMAGE,
        "tag", REGISTRAR_TAG, "pullPolicy", "Never")));
    Map<String, Object> add = new LinkedHashMap<>();
    add.put("image", never);
    if (release.driver().equals("ebs")) {
      for (String s : List.of("provisioner", "attacher", "resizer", "snapshotter")) {
        sidecars.put(s, Map.of("image", never));
      }
      Map<String, Object> controller = new LinkedHashMap<>(rootPrivileged);
      controller.put("replicaCount", 2);
      add.put("controller", controller);
      add.put("node", Map.of("hostNetwork", true, "tolerateAllTaints", true));
      add.put("storageClasses", List.of(
          Map.of("name", ClusterFixture.GP3, "volumeBindingMode", "WaitForFirstConsumer", "allowVolumeExpansion",
              true, "reclaimPolicy", "Delete", "parameters", Map.of("type", "gp3", "encrypted", "true")),
          Map.of("name", EBS_XFS_CLASS, "volumeBindingMode", "WaitForFirstConsumer", "allowVolumeExpansion", true,
              "reclaimPolicy", "Delete", "parameters", Map.of("type", "gp3", "csi.storage.k8s.io/fstype", "xfs"))));
      add.put("volumeSnapshotClasses", List.of(Map.of("name", ClusterFixture.SNAPSHOT_CLASS, "deletionPolicy",
          "Delete")));
    } else {
      sidecars.put("csiProvisioner", Map.of("image", never));
      Map<String, Object> controller = new LinkedHashMap<>(rootPrivileged);
      controller.put("replicaCount", 2);
      controller.put("hostNetwork", false);
      add.put("controller", controller);
    }
    add.put("sidecars", sidecars);
    return merge(runtime, add);
  }

  private LocalCluster local() {
    return cluster.localCluster();
  }

  /** {@code map} with {@code keys} set to null: helm drops a default given null. */
  private static Map<String, Object> nullable(Map<String, Object> map, String... keys) {
    Map<String, Object> out = new LinkedHashMap<>(map);
    for (String k : keys) {
      out.put(k, null);
    }
    return out;
  }

  /** {@code over} merged into {@code base} as helm merges values files: maps key by key, anything else replaced. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> merge(Map<String, Object> base, Map<String, Object> over) {
    Map<String, Object> out = new LinkedHashMap<>(base);
    over.forEach((k, v) -> out.merge(k, v, (a, b) -> a instanceof Map<?, ?> am && b instanceof Map<?, ?> bm
        ? merge((Map<String, Object>) am, (Map<String, Object>) bm) : b));
    return out;
  }

  /**
   * Every pod of the release Ready, its plugin container run by this chart ({@code ours}: the args name the driver)
   * or by upstream's (no {@code --driver}: upstream's EBS passes the mode as the first argument, EFS neither).
   */
  private void awaitPods(ChartRelease release, boolean ours) {
    String plugin = release.driver() + "-plugin";
    Eventually.await("every pod of " + release.name() + " on " + (ours ? "this" : "upstream's") + " chart and Ready",
        ClusterFixture.POD_READY, () -> {
          List<Pod> pods = release.pods(cluster.client);
          return pods.size() == 3 && pods.stream().allMatch(p -> {
            Container c = p.getSpec().getContainers().getFirst();
            return Readiness.isPodReady(p) && c.getName().equals(plugin)
                && (c.getArgs() != null && c.getArgs().stream().anyMatch(a -> a.startsWith("--driver"))) == ours;
          });
        });
  }

  private void awaitRegistered(String driverName) {
    for (var node : cluster.schedulableNodes()) {
      cluster.awaitDriverRegistered(node.getMetadata().getName(), driverName);
    }
  }

  /** The pod {@code old} replaced by {@code next} on the same claim: detached (EBS), attached, mounted, data there. */
  private void remount(String old, String next, String pvc, String token) {
    cluster.deletePod(old);
    cluster.startSleeper(next, pvc);
    assertThat(cluster.exec(next, "cat " + ClusterFixture.MOUNT + "/f")).isEqualTo(token);
  }

  private void expand(String pvc, String size) {
    cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).withName(pvc).edit(p -> {
      p.getSpec().getResources().getRequests().put("storage", new Quantity(size));
      return p;
    });
    Eventually.await("PVC " + pvc + " capacity " + size, Duration.ofMinutes(4), () -> {
      var status = cluster.pvc(pvc).getStatus();
      return status.getCapacity() != null && new Quantity(size).equals(status.getCapacity().get("storage"));
    });
  }

  /** A VolumeSnapshot of {@code pvc} readyToUse, when the cluster serves them; its EC2 snapshot id. */
  @SuppressWarnings("unchecked")
  private String snapshot(String name, String pvc) {
    if (!cluster.hasSnapshotApi()) {
      return "no snapshot CRDs in this cluster: not snapshotted";
    }
    var snapshots = cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT).inNamespace(cluster.namespace);
    cluster.createVolumeSnapshot(name, pvc);
    Eventually.await("VolumeSnapshot " + name + " readyToUse", Duration.ofMinutes(5), () -> {
      GenericKubernetesResource s = snapshots.withName(name).get();
      Object status = s == null ? null : s.getAdditionalProperties().get("status");
      return status instanceof Map<?, ?> m && Boolean.TRUE.equals(m.get("readyToUse"));
    });
    Map<String, Object> status = (Map<String, Object>) snapshots.withName(name).get().getAdditionalProperties()
        .get("status");
    return String.valueOf(status.get("boundVolumeSnapshotContentName"));
  }
}
