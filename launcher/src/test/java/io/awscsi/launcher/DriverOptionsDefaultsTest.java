package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.logging.LoggingSetup;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

/**
 * Each flag's default is written once, in the flag table (Usage.SERVE), which --help prints and
 * docs/plugin-flags.json carries: an empty command line must parse to exactly those defaults.
 */
class DriverOptionsDefaultsTest {

  /** For each flag with a default: the parsed option, and the table's default read the way the option means it. */
  private record Check(Function<DriverOptions, Object> option, Function<String, Object> meaning) {}

  private static final Map<String, Check> CHECKS = new LinkedHashMap<>();

  static {
    CHECKS.put("driver", new Check(o -> o.driver().name(), String::toUpperCase));
    CHECKS.put("mode", new Check(o -> o.mode().name(), String::toUpperCase));
    CHECKS.put("endpoint", new Check(DriverOptions::endpoint, d -> d));
    CHECKS.put("log-format", new Check(o -> o.logFormat(), d -> LoggingSetup.Format.valueOf(d.toUpperCase())));
    CHECKS.put("log-level", new Check(o -> o.logLevel(), d -> Level.toLevel(d, null)));
    CHECKS.put("shutdown-grace", new Check(o -> o.shutdownGrace(), d -> Flags.parseDuration("x", d)));
    CHECKS.put("plugin-registration-path",
        new Check(o -> o.registration().orElseThrow().pluginRegistrationDir(), Path::of));
    CHECKS.put("metadata-sources", new Check(DriverOptions::metadataSources,
        io.awscsi.aws.metadata.InstanceMetadataResolver::parseSourceNames));
    CHECKS.put("kubelet-dir", new Check(o -> o.kubeletDir(), Path::of));
    CHECKS.put("modify-volume-request-handler-timeout",
        new Check(o -> o.ebs().modifyVolumeRequestHandlerTimeout(), d -> Flags.parseDuration("x", d)));
    CHECKS.put("vol-metrics-refresh-period",
        new Check(o -> o.efs().volMetricsRefreshPeriod(), DriverOptions::refreshPeriod));
    CHECKS.put("vol-metrics-fs-rate-limit", new Check(o -> o.efs().volMetricsFsRateLimit(), Integer::valueOf));
    CHECKS.put("unmount-timeout", new Check(o -> o.efs().unmountTimeout(), d -> Flags.parseDuration("x", d)));
    CHECKS.put("efs-utils-config-dir-path", new Check(o -> o.efs().efsUtilsDirectories().configDir(), Path::of));
    CHECKS.put("efs-utils-config-legacy-dir-path",
        new Check(o -> o.efs().efsUtilsDirectories().legacyConfigDir(), Path::of));
    CHECKS.put("efs-utils-static-files-path",
        new Check(o -> o.efs().efsUtilsDirectories().staticFilesDir(), Path::of));
    CHECKS.put("efs-utils-etc-dir-path", new Check(o -> o.efs().efsUtilsDirectories().etcDir(), Path::of));
    CHECKS.put("efs-state-dir-path", new Check(o -> o.efs().efsUtilsDirectories().stateDir(), Path::of));
    CHECKS.put("efs-work-dir", new Check(o -> o.efs().workDir(), Path::of));
  }

  @Test
  void anEmptyCommandLineParsesToTheTablesDefaults() {
    // The one flag without a default that another's default depends on: the registration directory counts only with
    // the registration turned on.
    DriverOptions parsed = DriverOptions.parse(
        new String[] {"--kubelet-registration-path", "/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock"}, Map.of());

    for (FlagTable.Flag flag : Usage.SERVE.flags()) {
      if (flag.defaultValue().isEmpty()) {
        continue;
      }
      assertThat(CHECKS.containsKey(flag.name())).as("--%s has a default in the table: add it here", flag.name())
          .isTrue();
      Check check = CHECKS.get(flag.name());
      assertThat(check.option().apply(parsed)).as("--%s parsed from an empty command line", flag.name())
          .isEqualTo(check.meaning().apply(flag.defaultValue()));
    }
  }

  @Test
  void flagsWithoutADefaultParseToNothing() {
    DriverOptions parsed = DriverOptions.parse(new String[0], Map.of());

    assertThat(parsed.httpEndpoint()).isEmpty();
    assertThat(parsed.imdsEndpoint()).isEmpty();
    assertThat(parsed.registration()).isEmpty();
    assertThat(parsed.ebs().extraTags()).isEmpty();
    assertThat(parsed.ebs().volumeAttachLimit()).isEqualTo(-1);
    assertThat(parsed.efs().maxInflightMountCalls()).isEqualTo(-1);
    assertThat(parsed.efs().tags()).isEmpty();
    for (FlagTable.Flag flag : Usage.SERVE.flags()) {
      if (!flag.takesValue()) {
        assertThat(flag.defaultValue()).as("--%s takes no value: its default is false", flag.name()).isEmpty();
      }
    }
  }

  @Test
  void helpShowsEachDefaultFromTheTable() {
    for (FlagTable.Flag flag : Usage.SERVE.flags()) {
      if (flag.takesValue() && !flag.defaultValue().isEmpty()) {
        assertThat(Usage.SERVE.help()).contains(flag.help() + " (default " + flag.defaultValue() + ")");
        assertThat(flag.help()).as("--%s: the default is rendered from the table", flag.name())
            .doesNotContain("default " + flag.defaultValue());
      }
    }
  }

  @Test
  void csiEndpointFromTheEnvironmentCountsOnlyWithoutTheFlag() {
    assertThat(DriverOptions.parse(new String[0], Map.of("CSI_ENDPOINT", "unix:///e.sock")).endpoint())
        .isEqualTo("unix:///e.sock");
    assertThat(DriverOptions.parse(new String[] {"--endpoint", "unix:///f.sock"},
        Map.of("CSI_ENDPOINT", "unix:///e.sock")).endpoint()).isEqualTo("unix:///f.sock");
  }
}
