package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Every argument upstream's own EBS and EFS charts pass to their ebs-plugin and efs-plugin containers parses with this
 * launcher, as the driver and mode of the pod: the real
 * chart (UPSTREAM_CHARTS, as helm/tests reads it) rendered now by helm (HELM_TEST_TOOLS_DIR/helm, as helm/tests finds
 * it), with its defaults and with additionalArgs an operator may have set, {@code $(CSI_ENDPOINT)} expanded from the
 * container's environment as the kubelet does. Skipped, saying why, where helm or the charts are not there.
 */
class UpstreamChartArgsTest {

  /** Surefire runs in the module's directory. */
  private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern KUBELET_VARIABLE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

  private static Path helm() {
    String dir = System.getenv("HELM_TEST_TOOLS_DIR");
    return (dir == null || dir.isBlank() ? REPO.resolve("helm/tests/.tools") : Path.of(dir)).resolve("bin/helm");
  }

  private static Path chart(String driver) {
    String dir = System.getenv("UPSTREAM_CHARTS");
    Path root = dir == null || dir.isBlank() ? REPO.resolve("../shared/reference/upstream-charts") : Path.of(dir);
    return root.resolve("charts/aws-" + driver + "-csi-driver");
  }

  /**
   * The {@code driver}-plugin containers' args of upstream's chart of {@code driver}, rendered with {@code set}, the
   * kubelet's variable expansion done.
   */
  @SuppressWarnings("unchecked")
  private static List<List<String>> chartPluginArgs(String driver, String... set) throws IOException,
      InterruptedException {
    Path chart = chart(driver);
    assumeThat(Files.isExecutable(helm())).as("helm at %s (set HELM_TEST_TOOLS_DIR)", helm()).isTrue();
    assumeThat(Files.isDirectory(chart)).as("upstream's chart at %s (set UPSTREAM_CHARTS)", chart).isTrue();
    List<String> command = new ArrayList<>(List.of(helm().toString(), "template", "upstream", chart.toString(),
        "--namespace", "kube-system", "--kube-version", "1.37.2"));
    for (String s : set) {
      command.addAll(List.of("--set-json", s));
    }
    Process helm = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String rendered = new String(helm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(helm.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(helm.exitValue()).as("helm template %s", String.join(" ", set)).isZero();
    List<List<String>> out = new ArrayList<>();
    for (Object doc : new Load(LoadSettings.builder().build()).loadAllFromString(rendered)) {
      if (!(doc instanceof Map<?, ?> object) || !(object.get("spec") instanceof Map<?, ?> spec)
          || !(spec.get("template") instanceof Map<?, ?> template)
          || !(template.get("spec") instanceof Map<?, ?> podSpec)) {
        continue;
      }
      for (Object c : (List<Object>) podSpec.get("containers")) {
        Map<String, Object> container = (Map<String, Object>) c;
        if (!(driver + "-plugin").equals(container.get("name"))) {
          continue;
        }
        Map<String, String> env = new java.util.HashMap<>();
        for (Object e : (List<Object>) container.getOrDefault("env", List.of())) {
          Map<String, Object> var = (Map<String, Object>) e;
          if (var.get("value") != null) {
            env.put((String) var.get("name"), String.valueOf(var.get("value")));
          }
        }
        out.add(((List<Object>) container.get("args")).stream().map(String::valueOf)
            .map(a -> expand(a, env)).toList());
      }
    }
    return out;
  }

  /** The kubelet's {@code $(VAR)} expansion from the container's own environment. */
  private static String expand(String arg, Map<String, String> env) {
    Matcher m = KUBELET_VARIABLE.matcher(arg);
    return m.replaceAll(r -> Matcher.quoteReplacement(env.getOrDefault(r.group(1), r.group())));
  }

  private static void assertEachParses(List<List<String>> containers) {
    assertThat(containers).as("ebs-plugin containers rendered").hasSizeGreaterThanOrEqualTo(2);
    for (List<String> args : containers) {
      DriverOptions options = DriverOptions.parse(args.toArray(String[]::new), Map.of());
      assertThat(options.mode().name().toLowerCase()).as("%s", args).isEqualTo(args.getFirst());
      assertThat(options.endpoint()).as("%s", args).doesNotContain("$(");
      io.awscsi.core.server.CsiEndpoint.parse(options.endpoint());
    }
  }

  @Test
  void upstreamsChartDefaultsParse() throws Exception {
    List<List<String>> containers = chartPluginArgs("ebs");

    assertEachParses(containers);
    assertThat(containers).anySatisfy(args -> assertThat(args).contains("controller", "--batching=true",
        "--user-agent-extra=helm"));
    assertThat(containers).anySatisfy(args -> assertThat(args).contains("node", "--logging-format=text"));
  }

  @Test
  void upstreamsChartWithAdditionalArgsParses() throws Exception {
    List<List<String>> containers = chartPluginArgs("ebs", 
        "controller.additionalArgs=[\"--warn-on-invalid-tag\",\"--metadata-sources=kubernetes,imds\",\"--v=5\"]",
        "node.additionalArgs=[\"--metadata-sources=kubernetes\",\"--logtostderr\"]",
        "controller.extraVolumeTags={\"team\":\"a\"}", "controller.loggingFormat=\"json\"", "node.loggingFormat=\"json\"");

    assertEachParses(containers);
    DriverOptions controller = containers.stream().filter(a -> a.getFirst().equals("controller")).findFirst()
        .map(a -> DriverOptions.parse(a.toArray(String[]::new), Map.of())).orElseThrow();
    assertThat(controller.ebs().warnOnInvalidTag()).isTrue();
    assertThat(controller.metadataSources()).containsExactly("kubernetes", "imds");
    assertThat(controller.ebs().extraTags()).containsEntry("team", "a");
    assertThat(controller.logFormat()).isEqualTo(io.awscsi.core.logging.LoggingSetup.Format.JSON);
  }

  /** The rendered EFS pods' options: the controller's and the node's, told apart by what the launcher made of them. */
  private static Map<DriverOptions.Mode, DriverOptions> efsPods(String... set) throws Exception {
    List<List<String>> containers = chartPluginArgs("efs", set);
    assertThat(containers).as("efs-plugin containers rendered").hasSize(2);
    Map<DriverOptions.Mode, DriverOptions> out = new java.util.EnumMap<>(DriverOptions.Mode.class);
    for (List<String> args : containers) {
      assertThat(args).as("upstream EFS names neither driver nor mode").noneMatch(a -> a.startsWith("--driver")
          || a.startsWith("--mode") || !a.startsWith("-"));
      DriverOptions options = DriverOptions.parse(args.toArray(String[]::new), Map.of());
      assertThat(options.driver()).as("%s", args).isEqualTo(DriverOptions.Driver.EFS);
      io.awscsi.core.server.CsiEndpoint.parse(options.endpoint());
      out.put(options.mode(), options);
    }
    return out;
  }

  @Test
  void upstreamsEfsChartDefaultsStartTheEfsControllerAndNode() throws Exception {
    Map<DriverOptions.Mode, DriverOptions> pods = efsPods("controller.enableMetrics=true");

    assertThat(pods).containsOnlyKeys(DriverOptions.Mode.CONTROLLER, DriverOptions.Mode.NODE);
    DriverOptions controller = pods.get(DriverOptions.Mode.CONTROLLER);
    assertThat(controller.endpoint()).isEqualTo("unix:///var/lib/csi/sockets/pluginproxy/csi.sock");
    assertThat(controller.httpEndpoint()).isEqualTo("0.0.0.0:3301");
    assertThat(controller.efs().deleteAccessPointRootDir()).isFalse();
    DriverOptions node = pods.get(DriverOptions.Mode.NODE);
    assertThat(node.efs().volMetricsOptIn()).isFalse();
    // the chart renders the limits' values always; they count only when opted in, as upstream
    assertThat(node.efs().maxInflightMountCalls()).isEqualTo(-1);
    assertThat(node.efs().volumeAttachLimit()).isZero();
    assertThat(node.logLevel()).isEqualTo(org.apache.logging.log4j.Level.INFO);
  }

  @Test
  void upstreamsEfsChartValuesReachTheirFlags() throws Exception {
    Map<DriverOptions.Mode, DriverOptions> pods = efsPods("controller.deleteAccessPointRootDir=true",
        "controller.tags={\"team\":\"a\"}", "node.volMetricsOptIn=true", "node.volMetricsRefreshPeriod=30",
        "node.maxInflightMountCallsOptIn=true", "node.maxInflightMountCalls=4", "node.volumeAttachLimitOptIn=true",
        "node.volumeAttachLimit=7", "node.forceUnmountAfterTimeout=true", "node.unmountTimeout=\"45s\"",
        "node.efsCloudWatchLogEnabled=true", "debugLogs=true",
        "node.efsUtilsConfOverrides=\"mount:retry_nfs_mount_command_count=5\"");

    DriverOptions controller = pods.get(DriverOptions.Mode.CONTROLLER);
    assertThat(controller.efs().deleteAccessPointRootDir()).isTrue();
    assertThat(controller.efs().tags()).containsEntry("team", "a");
    assertThat(controller.logLevel()).isEqualTo(org.apache.logging.log4j.Level.DEBUG);
    DriverOptions node = pods.get(DriverOptions.Mode.NODE);
    assertThat(node.efs().volMetricsOptIn()).isTrue();
    assertThat(node.efs().volMetricsRefreshPeriod()).isEqualTo(java.time.Duration.ofMinutes(30));
    assertThat(node.efs().maxInflightMountCalls()).isEqualTo(4);
    assertThat(node.efs().volumeAttachLimit()).isEqualTo(7);
    assertThat(node.efs().forceUnmountAfterTimeout()).isTrue();
    assertThat(node.efs().unmountTimeout()).isEqualTo(java.time.Duration.ofSeconds(45));
    assertThat(node.efs().cloudWatchLogEnabled()).isTrue();
    assertThat(node.efs().efsUtilsConfOverrides()).hasSize(1);
    assertThat(node.logLevel()).isEqualTo(org.apache.logging.log4j.Level.DEBUG);
  }
}
