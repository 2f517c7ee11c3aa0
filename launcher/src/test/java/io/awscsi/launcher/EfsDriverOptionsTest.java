package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.efs.efsutils.ConfOverride;
import io.awscsi.efs.efsutils.EfsUtilsDirectories;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The EFS flags under upstream's names and meanings, including the arguments upstream's chart always passes. */
class EfsDriverOptionsTest {

  private static DriverOptions.Efs parse(String... args) {
    String[] all = new String[args.length + 2];
    all[0] = "--driver";
    all[1] = "efs";
    System.arraycopy(args, 0, all, 2, args.length);
    return DriverOptions.parse(all, Map.of()).efs();
  }

  @Test
  void theInflightMountLimitAndTheAttachLimitCountOnlyWhenOptedIn() {
    // upstream's node DaemonSet passes the values always and the opt-ins only when asked
    DriverOptions.Efs notOptedIn = parse("--max-inflight-mount-calls=10", "--volume-attach-limit=20");
    assertThat(notOptedIn.maxInflightMountCalls()).isEqualTo(-1);
    assertThat(notOptedIn.volumeAttachLimit()).isZero();

    DriverOptions.Efs optedIn = parse("--max-inflight-mount-calls-opt-in=true", "--max-inflight-mount-calls=10",
        "--volume-attach-limit-opt-in", "--volume-attach-limit=20");
    assertThat(optedIn.maxInflightMountCalls()).isEqualTo(10);
    assertThat(optedIn.volumeAttachLimit()).isEqualTo(20);
  }

  @Test
  void theRefreshPeriodIsInMinutesAsUpstreamOrADuration() {
    assertThat(parse().volMetricsRefreshPeriod()).isEqualTo(Duration.ofMinutes(240));
    assertThat(parse("--vol-metrics-refresh-period=240").volMetricsRefreshPeriod())
        .isEqualTo(Duration.ofMinutes(240));
    assertThat(parse("--vol-metrics-refresh-period", "0.5").volMetricsRefreshPeriod())
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(parse("--vol-metrics-refresh-period", "90s").volMetricsRefreshPeriod())
        .isEqualTo(Duration.ofSeconds(90));
    assertThatThrownBy(() -> parse("--vol-metrics-refresh-period", "0"))
        .hasMessageContaining("--vol-metrics-refresh-period must be positive");
    assertThatThrownBy(() -> parse("--vol-metrics-fs-rate-limit", "0"))
        .hasMessageContaining("--vol-metrics-fs-rate-limit must be positive");
  }

  @Test
  void theControllersWorkDirectoryIsUpstreamsUnlessTheFlagMovesIt() {
    assertThat(parse().workDir()).isEqualTo(Path.of("/var/lib/csi/pv"));
    assertThat(parse("--efs-work-dir", "/tmp/pv-test").workDir()).isEqualTo(Path.of("/tmp/pv-test"));
  }

  @Test
  void efsUtilsDirectoriesDefaultToUpstreamsAndFollowTheFlags() {
    assertThat(parse().efsUtilsDirectories()).isEqualTo(EfsUtilsDirectories.DEFAULT);
    assertThat(parse().efsUtilsDirectories().configDir()).isEqualTo(Path.of("/var/amazon/efs"));
    assertThat(parse().efsUtilsDirectories().stateDir()).isEqualTo(Path.of("/var/run/efs"));

    EfsUtilsDirectories dirs = parse("--efs-utils-config-dir-path=/c", "--efs-utils-config-legacy-dir-path=/l",
        "--efs-utils-static-files-path=/s", "--efs-utils-etc-dir-path=/e", "--efs-state-dir-path=/r")
        .efsUtilsDirectories();
    assertThat(dirs).isEqualTo(new EfsUtilsDirectories(Path.of("/c"), Path.of("/l"), Path.of("/s"), Path.of("/e"),
        Path.of("/r")));
  }

  @Test
  void confOverridesAreParsedAndAWrongOneStopsTheStartNamingIt() {
    assertThat(parse("--efs-utils-conf-overrides", "mount-watchdog:poll_interval_sec=2,mount:fips_mode_enabled=true")
        .efsUtilsConfOverrides()).containsExactly(new ConfOverride("mount-watchdog", "poll_interval_sec", "2"),
            new ConfOverride("mount", "fips_mode_enabled", "true"));
    assertThatThrownBy(() -> parse("--efs-utils-conf-overrides", "mount:no_such_key=1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--efs-utils-conf-overrides").hasMessageContaining("has no key no_such_key");
    assertThatThrownBy(() -> parse("--efs-utils-conf-overrides", "mount:dns_name_suffix=example.com"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot set dns_name_suffix");
  }

  @Test
  void theWatchdogPathAndCloudWatchLogsAreFlags() {
    assertThat(parse().watchdogPath()).isEmpty();
    assertThat(parse().cloudWatchLogEnabled()).isFalse();
    DriverOptions.Efs set = parse("--efs-mount-watchdog-path", "/opt/w", "--efs-cloudwatch-log-enabled=true");
    assertThat(set.watchdogPath()).isEqualTo("/opt/w");
    assertThat(set.cloudWatchLogEnabled()).isTrue();
  }

  @org.junit.jupiter.api.Test
  void accessPointTagsOverEfsLimitsStopTheStart() {
    assertThat(parse("--tags", "team:a env:prod").tags()).containsEntry("team", "a").containsEntry("env", "prod");
    String fortySix = java.util.stream.IntStream.range(0, 46).mapToObj(i -> "k" + i + ":v")
        .collect(java.util.stream.Collectors.joining(" "));
    assertThatThrownBy(() -> parse("--tags", fortySix)).hasMessageContaining("--tags").hasMessageContaining("46");
    assertThatThrownBy(() -> parse("--tags", "k".repeat(129) + ":v")).hasMessageContaining("1 to 128");
    assertThatThrownBy(() -> parse("--tags", "k:a\u001bb")).hasMessageContaining("control");
  }
}
