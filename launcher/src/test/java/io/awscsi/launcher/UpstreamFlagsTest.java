package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.logging.LoggingSetup;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

/** Upstream EBS driver's operator-facing command-line forms, read in this driver's terms. */
class UpstreamFlagsTest {

  private static DriverOptions parse(String... args) {
    return DriverOptions.parse(args, Map.of());
  }

  @Test
  void theModeIsUpstreamsFirstArgument() {
    assertThat(parse("controller").mode()).isEqualTo(DriverOptions.Mode.CONTROLLER);
    assertThat(parse("node", "--driver", "ebs").mode()).isEqualTo(DriverOptions.Mode.NODE);
    assertThat(parse("all").mode()).isEqualTo(DriverOptions.Mode.ALL);
    assertThat(parse("node", "--mode", "node").mode()).isEqualTo(DriverOptions.Mode.NODE);
  }

  @Test
  void aModeArgumentAndADisagreeingModeFlagAreAUsageErrorNamingBoth() {
    assertThatThrownBy(() -> parse("controller", "--mode=node"))
        .hasMessageContaining("controller").hasMessageContaining("--mode node").hasMessageContaining("disagree");
    assertThatThrownBy(() -> parse("metadataLabeler")).hasMessageContaining("unexpected argument metadataLabeler");
    assertThatThrownBy(() -> parse("node", "extra")).hasMessageContaining("unexpected argument extra");
  }

  @Test
  void mainServesTheModeArgumentAndStillKnowsItsSubcommands() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    // A usage error after the mode shows the mode reached the serving driver's parser, not the subcommand switch.
    int code = Main.run(new String[] {"controller", "--batching=false"}, Map.of(), System.out, e);
    int unknown = Main.run(new String[] {"metadataLabeler"}, Map.of(), System.out, e);

    assertThat(code).isEqualTo(Main.EXIT_USAGE);
    assertThat(unknown).isEqualTo(Main.EXIT_USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--batching=false")
        .contains("unknown subcommand metadataLabeler");
  }

  @Test
  void klogVerbosityIsTheLogLevelInEveryForm() {
    assertThat(parse("--v=2").logLevel()).isEqualTo(Level.INFO);
    assertThat(parse("-v=3").logLevel()).isEqualTo(Level.INFO);
    assertThat(parse("--v", "4").logLevel()).isEqualTo(Level.DEBUG);
    assertThat(parse("-v", "5").logLevel()).isEqualTo(Level.DEBUG);
    assertThat(parse("--v=0").logLevel()).isEqualTo(Level.INFO);
    assertThat(parse("--v=5", "--log-level=debug").logLevel()).isEqualTo(Level.DEBUG);
  }

  @Test
  void klogVerbosityAndADisagreeingLogLevelAreRefused() {
    assertThatThrownBy(() -> parse("--v=2", "--log-level", "debug"))
        .hasMessageContaining("--v=2").hasMessageContaining("--log-level debug").hasMessageContaining("disagree");
    assertThatThrownBy(() -> parse("--v=high")).hasMessageContaining("--v takes");
  }

  @Test
  void loggingFormatIsLogFormat() {
    assertThat(parse("--logging-format=json").logFormat()).isEqualTo(LoggingSetup.Format.JSON);
    assertThat(parse("--logging-format", "text").logFormat()).isEqualTo(LoggingSetup.Format.TEXT);
    assertThatThrownBy(() -> parse("--logging-format=json", "--log-format=text")).hasMessageContaining("disagree");
    assertThatThrownBy(() -> parse("--logging-format=yaml")).hasMessageContaining("--log-format must be");
  }

  @Test
  void logToStderrIsWhatThisDriverDoesAndFalseIsRefused() {
    assertThat(parse("--logtostderr").mode()).isEqualTo(DriverOptions.Mode.ALL);
    assertThat(parse("--logtostderr=true").mode()).isEqualTo(DriverOptions.Mode.ALL);
    assertThatThrownBy(() -> parse("--logtostderr=false")).hasMessageContaining("stderr");
  }

  @Test
  void batchingIsAlwaysOnAndFalseIsRefused() {
    assertThat(parse("--batching=true").mode()).isEqualTo(DriverOptions.Mode.ALL);
    assertThat(parse("--batching").mode()).isEqualTo(DriverOptions.Mode.ALL);
    assertThatThrownBy(() -> parse("--batching=false")).hasMessageContaining("cannot be turned off");
  }

  @Test
  void metadataSourcesAreReadInTheirOrder() {
    assertThat(parse().metadataSources()).containsExactly("imds", "kubernetes");
    assertThat(parse("--metadata-sources=kubernetes,imds").metadataSources()).containsExactly("kubernetes", "imds");
    assertThat(parse("--metadata-sources", "kubernetes").metadataSources()).containsExactly("kubernetes");
    assertThat(parse("--metadata-sources=imds").metadataSources()).containsExactly("imds");
    assertThatThrownBy(() -> parse("--metadata-sources=imds,metadata-labeler"))
        .hasMessageContaining("metadata-labeler");
  }

  @Test
  void theDriverAsksTheMetadataSourcesOfTheFlagInItsOrder() {
    for (String flag : List.of("kubernetes,imds", "imds,kubernetes", "kubernetes", "imds")) {
      DriverOptions o = parse("node", "--metadata-sources=" + flag);
      try (var resolver = DriverFactories.metadataResolver(o.metadataSources(), io.awscsi.aws.Environment.empty(),
          () -> null)) {
        assertThat(String.join(",", resolver.sourceNames())).isEqualTo(flag);
      }
    }
  }

  @Test
  void theAwsClientsCarryTheUserAgentExtra() {
    DriverOptions o = parse("controller", "--user-agent-extra=helm");
    var config = DriverFactories.clientConfig(o, io.awscsi.aws.Environment.of(Map.of("AWS_REGION", "us-east-1")),
        () -> {
          throw new AssertionError("the region is in the environment");
        });
    assertThat(config.userAgentSuffix()).endsWith(" helm");
  }

  @Test
  void userAgentExtraAndWarnOnInvalidTagReachTheOptions() {
    DriverOptions o = parse("controller", "--user-agent-extra=helm", "--warn-on-invalid-tag");
    assertThat(o.userAgentExtra()).isEqualTo("helm");
    assertThat(o.ebs().warnOnInvalidTag()).isTrue();
    assertThat(parse().ebs().warnOnInvalidTag()).isFalse();
  }

  @Test
  void theCsiMountPointPrefixIsAcceptedAsAnAbsolutePath() {
    DriverOptions o = parse("node", "--csi-mount-point-prefix=/var/lib/kubelet/plugins/kubernetes.io/csi/ebs.csi.aws.com/");
    assertThat(o.kubeletDir()).isEqualTo(parse("node").kubeletDir());
    // upstream starts with a prefix outside the kubelet directory (its metrics then find no volume): so does this one
    assertThat(parse("node", "--csi-mount-point-prefix=/var/lib/kubelet/plugins", "--kubelet-dir=/data/kubelet")
        .kubeletDir()).isEqualTo(java.nio.file.Path.of("/data/kubelet"));
    assertThatThrownBy(() -> parse("node", "--csi-mount-point-prefix=plugins/x"))
        .hasMessageContaining("--csi-mount-point-prefix takes an absolute path");
  }

  @Test
  void upstreamsChartArgumentsParse() {
    // What upstream's chart passes, with CSI_ENDPOINT expanded by the kubelet (helm/tests renders the chart itself).
    DriverOptions controller = DriverOptions.parse(new String[] {"controller", "--endpoint=unix:///var/lib/csi/"
        + "sockets/pluginproxy/csi.sock", "--batching=true", "--logging-format=text", "--user-agent-extra=helm",
        "--v=2"}, Map.of());
    DriverOptions node = DriverOptions.parse(new String[] {"node", "--endpoint=unix:/csi/csi.sock",
        "--csi-mount-point-prefix=/var/lib/kubelet/plugins/kubernetes.io/csi/ebs.csi.aws.com/",
        "--logging-format=text", "--v=2"}, Map.of());

    assertThat(List.of(controller.mode(), node.mode())).containsExactly(DriverOptions.Mode.CONTROLLER,
        DriverOptions.Mode.NODE);
    assertThat(node.endpoint()).isEqualTo("unix:/csi/csi.sock");
    assertThat(io.awscsi.core.server.CsiEndpoint.parse(node.endpoint()).socketPath().toString())
        .isEqualTo("/csi/csi.sock");
  }

  // Upstream EFS's command line: neither driver nor mode.

  @Test
  void upstreamEfsControllerFlagsStartTheEfsController() {
    DriverOptions o = parse("--endpoint=unix:///csi/csi.sock", "--logtostderr", "--v=2",
        "--delete-access-point-root-dir=false", "--debug-logs=false", "--http-endpoint=0.0.0.0:3301");
    assertThat(o.driver()).isEqualTo(DriverOptions.Driver.EFS);
    assertThat(o.mode()).isEqualTo(DriverOptions.Mode.CONTROLLER);
    assertThat(o.logLevel()).isEqualTo(Level.INFO);
  }

  @Test
  void upstreamEfsNodeFlagsStartTheEfsNode() {
    DriverOptions o = parse("--endpoint=unix:/csi/csi.sock", "--logtostderr", "--v=2", "--vol-metrics-opt-in=false",
        "--vol-metrics-refresh-period=240", "--vol-metrics-fs-rate-limit=5", "--max-inflight-mount-calls-opt-in=false",
        "--max-inflight-mount-calls=10", "--volume-attach-limit-opt-in=false", "--volume-attach-limit=20",
        "--force-unmount-after-timeout=false", "--unmount-timeout=30s", "--debug-logs=false",
        "--efs-cloudwatch-log-enabled=false", "--s3files-cloudwatch-log-enabled=true",
        "--s3files-cloudwatch-metrics-enabled=true", "--s3files-utils-conf-overrides=");
    assertThat(o.driver()).isEqualTo(DriverOptions.Driver.EFS);
    assertThat(o.mode()).isEqualTo(DriverOptions.Mode.NODE);
  }

  @Test
  void bothEfsPodsFlagsWithoutAModeAreRefusedNamingThem() {
    assertThatThrownBy(() -> parse("--delete-access-point-root-dir", "--vol-metrics-opt-in"))
        .hasMessageContaining("--delete-access-point-root-dir").hasMessageContaining("--vol-metrics-opt-in")
        .hasMessageContaining("--mode");
    // a mode says which: the flags are the driver's own in mode all
    assertThat(parse("--mode=all", "--delete-access-point-root-dir", "--vol-metrics-opt-in").driver())
        .isEqualTo(DriverOptions.Driver.EFS);
  }

  @Test
  void anEfsPodsFlagWithAnEbsOnlyFlagAndNoDriverIsRefusedNamingBoth() {
    assertThatThrownBy(() -> parse("--vol-metrics-opt-in", "--extra-tags=a=b"))
        .hasMessageContaining("--vol-metrics-opt-in").hasMessageContaining("--extra-tags")
        .hasMessageContaining("--driver");
    assertThatThrownBy(() -> parse("controller", "--delete-access-point-root-dir", "--batching"))
        .hasMessageContaining("--batching");
  }

  @Test
  void anExplicitDriverOrModeWins() {
    DriverOptions withDriver = parse("--driver", "efs", "--delete-access-point-root-dir");
    assertThat(withDriver.mode()).isEqualTo(DriverOptions.Mode.ALL);
    assertThat(withDriver.efs().deleteAccessPointRootDir()).isTrue();
    assertThat(parse("--driver=ebs", "--vol-metrics-opt-in").driver()).isEqualTo(DriverOptions.Driver.EBS);
    assertThat(parse("--mode", "all", "--vol-metrics-opt-in").mode()).isEqualTo(DriverOptions.Mode.ALL);
    assertThat(parse("controller", "--vol-metrics-opt-in").mode()).isEqualTo(DriverOptions.Mode.CONTROLLER);
    // without either flag nothing changes: EBS, every service
    assertThat(parse("--v=2").driver()).isEqualTo(DriverOptions.Driver.EBS);
    assertThat(parse("--v=2").mode()).isEqualTo(DriverOptions.Mode.ALL);
  }

  @Test
  void debugLogsIsTheDebugLevelOverKlogsVerbosity() {
    assertThat(parse("--vol-metrics-opt-in", "--v=2", "--debug-logs=true").logLevel()).isEqualTo(Level.DEBUG);
    assertThat(parse("--debug-logs", "--log-level=debug").logLevel()).isEqualTo(Level.DEBUG);
    assertThat(parse("--v=2", "--debug-logs=false").logLevel()).isEqualTo(Level.INFO);
    assertThatThrownBy(() -> parse("--debug-logs", "--log-level=warn")).hasMessageContaining("--debug-logs")
        .hasMessageContaining("--log-level warn").hasMessageContaining("disagree");
  }

  @Test
  void s3FilesOverridesAreRefusedAndItsCloudWatchFlagsAccepted() {
    assertThat(parse("--vol-metrics-opt-in", "--s3files-cloudwatch-log-enabled=false",
        "--s3files-cloudwatch-metrics-enabled=false", "--s3files-utils-conf-overrides= ").mode())
        .isEqualTo(DriverOptions.Mode.NODE);
    assertThatThrownBy(() -> parse("--vol-metrics-opt-in", "--s3files-utils-conf-overrides=mount:a=b"))
        .hasMessageContaining("--s3files-utils-conf-overrides").hasMessageContaining("S3 Files");
  }

  @Test
  void upstreamFlagsThisDriverCannotHonourAreRefusedSayingWhy() {
    assertThatThrownBy(() -> parse("--delete-access-point-root-dir", "--adaptive-retry-mode=false"))
        .hasMessageStartingWith("--adaptive-retry-mode:").hasMessageContaining("retries AWS calls itself");
    assertThatThrownBy(() -> parse("--adaptive-retry-mode")).hasMessageStartingWith("--adaptive-retry-mode:");
    assertThatThrownBy(() -> parse("--metrics-cert-file=/c.pem")).hasMessageContaining("plain HTTP");
    assertThatThrownBy(() -> parse("--metrics-key-file", "/k.pem")).hasMessageStartingWith("--metrics-key-file:");
  }
}
