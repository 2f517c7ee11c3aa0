package io.awscsi.efs;

import io.awscsi.core.host.KubeletDirectory;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.host.LinuxMounter;
import io.awscsi.core.host.ProcessCommandRunner;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.DriverProvider;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.server.CsiEndpoint;
import io.awscsi.core.server.DriverRuntime;
import io.awscsi.efs.cloud.EfsCloudFactory;
import io.awscsi.efs.controller.EfsControllerOptions;
import io.awscsi.efs.controller.EfsControllerProvider;
import io.awscsi.emulation.efs.LocalDirectoryMountBackend;
import io.awscsi.efs.node.EfsNodeOptions;
import io.awscsi.efs.node.EfsNodeProvider;
import io.awscsi.efs.testing.MotoEfs;
import io.awscsi.realism.RealismProfile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * csi-sanity against the EFS controller and node served on a Unix socket: the EFS API is moto behind the realism proxy
 * and mounts use the local stand-in, so NodePublish really mounts.
 */
@Tag("integration")
class EfsSanityIntegrationTest {

  private static MotoEfs aws;

  @BeforeAll
  static void startAws() {
    aws = MotoEfs.start(RealismProfile.fast());
  }

  @AfterAll
  static void stopAws() {
    aws.close();
  }

  @SuppressWarnings("try") // the runtime serves while csi-sanity runs
  @ParameterizedTest(name = "provisioningMode {0}")
  @ValueSource(strings = {"efs-ap", "efs-dir"})
  void csiSanityPasses(String mode) throws Exception {
    Path sanity = csiSanity();
    Assumptions.assumeTrue(sanity != null, "csi-sanity is not installed (`make deps` puts it in .tools/bin): go "
        + "install github.com/kubernetes-csi/csi-test/v5/cmd/csi-sanity@v5.5.0");
    Path dir = Files.createTempDirectory("efs-sanity-");
    LinuxMounter mounter = LinuxMounter.create(ProcessCommandRunner.create());
    MetricsRegistry metrics = new MetricsRegistry();
    EfsCloudFactory clouds = aws.clouds(metrics);
    Path localRoot = dir.resolve("efs-local");
    String fs = aws.createFileSystem();
    EfsControllerProvider controller = EfsControllerProvider.create(new EfsControllerOptions(Map.of(), true,
        dir.resolve("controller"), ""), clouds, mounter, LocalDirectoryMountBackend.factory(localRoot));
    EfsNodeProvider node = EfsNodeProvider.create(new EfsNodeOptions(true, Duration.ofMinutes(1), 5, true,
        Duration.ofSeconds(10), 0),
        new NodeInfo("i-0123456789abcdef0", 0, Map.of("topology.kubernetes.io/zone", "us-east-1a")), mounter,
        ProcessCommandRunner.create(), new LocalDirectoryMountBackend(localRoot, mounter,
            clouds.defaultCloud()::describeAccessPoint));
    DriverProvider provider = new DriverProvider("efs.csi.aws.com", "test", Optional.of(controller),
        Optional.of(node), true, () -> {
          node.close();
          controller.close();
        });
    Path parameters = Files.writeString(dir.resolve("parameters.yaml"), "provisioningMode: " + mode + "\n"
        + "fileSystemId: " + fs + "\ndirectoryPerms: \"777\"\nbasePath: /sanity\n");
    Path socket = dir.resolve("csi.sock");
    try (DriverRuntime runtime = DriverRuntime.start(provider, KubeletDirectory.resolve(dir),
        CsiEndpoint.parse("unix://" + socket), null, metrics, Duration.ofSeconds(5))) {
      Path log = dir.resolve("sanity.log");
      Process process = new ProcessBuilder(sanity.toString(), "--csi.endpoint", "unix://" + socket,
          "--csi.mountdir", dir.resolve("mount").toString(), "--csi.stagingdir", dir.resolve("staging").toString(),
          "--csi.testvolumeparameters", parameters.toString(), "--ginkgo.junit-report",
          dir.resolve("junit.xml").toString())
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      boolean finished = process.waitFor(10, TimeUnit.MINUTES);
      if (!finished) {
        process.destroyForcibly();
      }
      String output = Files.readString(log);
      System.err.println(tail(output, 60));
      assertThat(finished).as("csi-sanity finished").isTrue();
      assertThat(process.exitValue()).as(tail(output, 80)).isZero();
      assertThat(output).contains("SUCCESS!");
    } finally {
      assertThat(mounter.mounts().stream().filter(m -> m.mountPoint().startsWith(dir))).isEmpty();
      deleteTree(dir);
    }
  }

  private static String tail(String text, int lines) {
    List<String> all = text.lines().toList();
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  private static void deleteTree(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /**
   * Where {@code make deps} installs it (the checkout's .tools/bin; Maven runs this module's tests in efs/), then PATH,
   * then {@code go install}'s ~/go/bin; null when none has it.
   */
  private static Path csiSanity() {
    List<Path> candidates = new ArrayList<>(List.of(Path.of("..", ".tools", "bin", "csi-sanity"),
        Path.of(".tools", "bin", "csi-sanity")));
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty()) {
        candidates.add(Path.of(dir, "csi-sanity"));
      }
    }
    candidates.add(Path.of(System.getProperty("user.home"), "go", "bin", "csi-sanity"));
    return candidates.stream().filter(Files::isExecutable).map(c -> c.toAbsolutePath().normalize()).findFirst()
        .orElse(null);
  }
}
