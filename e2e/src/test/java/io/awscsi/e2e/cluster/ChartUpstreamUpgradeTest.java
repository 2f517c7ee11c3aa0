package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 15 item 4 live, for each driver: a release made from the upstream-shaped render of aws-ebs-csi-driver or
 * aws-efs-csi-driver (helm/tests/upstream/shaped: upstream's object names, labels, selectors, roleRefs; placeholder
 * containers) is upgraded in place with {@code helm upgrade <release> helm/<chart> -f <the same values>}: the upgrade
 * succeeds (no immutable field changes) and every pod of this chart is Ready, registered with the kubelet, and a
 * volume is provisioned and mounted. The release is this chart's again afterwards, so the suite goes on with it.
 *
 * <p>Upstream's REAL charts (UPSTREAM_CHARTS), with volumes made under upstream's release and used after {@code helm
 * upgrade} (with {@code --reuse-values} and with the same values file) and after {@code helm rollback}, are
 * {@link ChartUpstreamRealUpgradeTest}: the driver now starts from upstream's EBS and EFS command lines.
 */
class ChartUpstreamUpgradeTest extends ClusterCase {

  @BeforeEach
  void podsModeOnly() {
    assumeTrue(ChartRelease.podsMode(cluster), "the local cluster runs the driver from the charts (make test-chart-pods)");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"ebs", "efs"})
  void anUpstreamShapedReleaseUpgradesInPlaceToThisChart(String driver) {
    ChartRelease release = driver.equals("ebs") ? ChartRelease.ebs(cluster.localCluster())
        : ChartRelease.efs(cluster.localCluster());
    String plugin = driver + "-plugin";
    String driverName = driver + ".csi.aws.com";
    Steps steps = new Steps("upgrade from an upstream-shaped " + release.name() + " release");
    Path fixture = Path.of(cluster.localCluster().get("KUBE_LOCAL_CHARTS"), "tests", "upstream", "shaped",
        release.name());
    steps.step("this chart's release uninstalled", () -> {
      release.helm("uninstall", release.name(), "-n", ClusterFixture.DRIVER_NAMESPACE, "--wait", "--timeout", "3m");
      Eventually.await("no pod of the release", Duration.ofMinutes(2), () -> release.pods(cluster.client).isEmpty());
    });
    try {
      steps.step("the upstream-shaped release installed with the same values", () -> {
        List<String> args = new ArrayList<>(List.of("install", release.name(), fixture.toString(), "-n",
            ClusterFixture.DRIVER_NAMESPACE, "--wait", "--timeout", "3m"));
        args.addAll(release.valuesArgs());
        args.addAll(List.of("--set", "fixtureImage=" + cluster.localCluster().busyboxImage()));
        release.helm(args);
        assertThat(release.helm("history", release.name(), "-n", ClusterFixture.DRIVER_NAMESPACE))
            .contains("deployed");
      });
    } finally {
      steps.step("helm upgrade to this chart with the same values: pods Ready, registered", () -> {
        release.upgrade();
        Eventually.await("every pod of " + release.name() + " on this chart and Ready", ClusterFixture.POD_READY, () -> {
          List<Pod> pods = release.pods(cluster.client);
          return pods.size() == 3 && pods.stream().allMatch(p -> Readiness.isPodReady(p)
              && p.getSpec().getContainers().getFirst().getName().equals(plugin)
              && !p.getSpec().getContainers().getFirst().getImage().equals(cluster.localCluster().busyboxImage()));
        });
        for (var node : cluster.schedulableNodes()) {
          cluster.awaitDriverRegistered(node.getMetadata().getName(), driverName);
        }
        return release.helm("history", release.name(), "-n", ClusterFixture.DRIVER_NAMESPACE).lines()
            .reduce((a, b) -> b).orElse("");
      });
    }
    steps.step("a volume provisioned, attached and mounted by the upgraded release", () -> {
      if (driver.equals("ebs")) {
        cluster.createPvc("after", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
      } else {
        cluster.createPvc("after", ClusterFixture.EFS_CLASS, "1Gi", "ReadWriteMany");
      }
      cluster.startPod("after", "after", "echo ok > " + ClusterFixture.MOUNT + "/f && sleep 86400", null);
      assertThat(cluster.exec("after", "cat " + ClusterFixture.MOUNT + "/f").trim()).isEqualTo("ok");
    });
    steps.summary();
  }
}
