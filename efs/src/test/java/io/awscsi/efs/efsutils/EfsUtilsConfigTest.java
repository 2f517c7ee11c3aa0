package io.awscsi.efs.efsutils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The efs-utils.conf written for each option, read back as efs-utils reads it (sections of key = value). */
class EfsUtilsConfigTest {

  /** section -> key -> value of the set (not commented) lines, as Python's ConfigParser sees them. */
  static Map<String, Map<String, String>> read(String text) {
    Map<String, Map<String, String>> sections = new LinkedHashMap<>();
    Map<String, String> current = null;
    for (String raw : text.lines().toList()) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith("[")) {
        current = sections.computeIfAbsent(line.substring(1, line.length() - 1), s -> new LinkedHashMap<>());
        continue;
      }
      int eq = line.indexOf('=');
      assertThat(current).as("a setting outside a section: " + line).isNotNull();
      assertThat(current.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip()))
          .as("key set twice: " + line).isNull();
    }
    return sections;
  }

  @Test
  void theDefaultsAreUpstreamsSettings() {
    Map<String, Map<String, String>> conf = read(EfsUtilsConfig.fromEnvironment(Map.of(), false, false, List.of())
        .render());

    assertThat(conf.get("DEFAULT")).containsEntry("logging_level", "INFO").containsEntry("state_file_dir_mode", "750");
    assertThat(conf.get("mount")).doesNotContainKey("region")
        .containsEntry("fips_mode_enabled", "false")
        .containsEntry("port_range_lower_bound", "20049").containsEntry("port_range_upper_bound", "21049")
        .containsEntry("stunnel_cafile", "/etc/amazon/efs/efs-utils.crt")
        .containsEntry("stunnel_check_cert_hostname", "true")
        .containsEntry("fall_back_to_mount_target_ip_address_enabled", "true")
        .containsEntry("retry_nfs_mount_command", "true").containsEntry("retry_nfs_mount_command_count", "3")
        .containsEntry("retry_nfs_mount_command_timeout_sec", "15");
    assertThat(conf.get("mount-watchdog")).containsEntry("enabled", "true").containsEntry("poll_interval_sec", "1")
        .containsEntry("unmount_grace_period_sec", "30").containsEntry("tls_cert_renewal_interval_min", "60")
        .containsEntry("stunnel_health_check_interval_min", "5");
    assertThat(conf.get("client-info")).containsEntry("source", "k8s");
    assertThat(conf.get("cloudwatch-log")).containsEntry("enabled", "false");
    assertThat(conf.get("mount.cn-north-1")).containsEntry("dns_name_suffix", "amazonaws.com.cn");
    assertThat(conf.get("mount.us-iso-east-1")).containsEntry("dns_name_suffix", "c2s.ic.gov");
  }

  @Test
  void regionFipsPortsLoggingAndCloudWatchFollowTheOptions() {
    EfsUtilsConfig config = EfsUtilsConfig.fromEnvironment(Map.of("AWS_DEFAULT_REGION", "eu-west-1",
        "AWS_REGION", "us-east-1", "FIPS_ENABLED", "true", "PORT_RANGE_UPPER_BOUND", "22000"), true, true, List.of());

    Map<String, Map<String, String>> conf = read(config.render());

    assertThat(conf.get("mount")).containsEntry("region", "eu-west-1").containsEntry("fips_mode_enabled", "true")
        .containsEntry("port_range_upper_bound", "22000");
    assertThat(conf.get("DEFAULT")).containsEntry("logging_level", "DEBUG");
    assertThat(conf.get("cloudwatch-log")).containsEntry("enabled", "true");
    assertThat(read(EfsUtilsConfig.fromEnvironment(Map.of("AWS_REGION", "us-west-2"), false, false, List.of())
        .render()).get("mount")).containsEntry("region", "us-west-2");
  }

  @Test
  void aPortRangeBelowUpstreamsMinimumOrNotANumberGivesTheMinimum() {
    for (String bound : List.of("20500", "lots", "")) {
      assertThat(read(EfsUtilsConfig.fromEnvironment(Map.of("PORT_RANGE_UPPER_BOUND", bound), false, false,
          List.of()).render()).get("mount")).containsEntry("port_range_upper_bound", "21049");
    }
  }

  @Test
  void overridesReplaceSetAndCommentedKeysInTheirSectionOnly() {
    List<ConfOverride> overrides = ConfOverride.parse("efs-utils-conf-overrides",
        "mount-watchdog:poll_interval_sec=5, mount:retry_nfs_mount_command_timeout_sec=60,mount:region=ap-south-1,"
            + "DEFAULT:logging_level=WARNING");

    Map<String, Map<String, String>> conf = read(new EfsUtilsConfig("", false, 21049, false, false, overrides)
        .render());

    assertThat(conf.get("mount-watchdog")).containsEntry("poll_interval_sec", "5");
    assertThat(conf.get("mount")).containsEntry("retry_nfs_mount_command_timeout_sec", "60")
        .containsEntry("region", "ap-south-1");
    assertThat(conf.get("DEFAULT")).containsEntry("logging_level", "WARNING");
    assertThat(conf.get("mount.cn-north-1")).doesNotContainKey("region");
  }

  @Test
  void anOverrideOfAMissingSectionOrKeyIsRefusedNamingIt() {
    assertThatThrownBy(() -> new EfsUtilsConfig("", false, 21049, false, false,
        ConfOverride.parse("f", "mount-watchdg:poll_interval_sec=5")).render())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no section [mount-watchdg]");
    assertThatThrownBy(() -> new EfsUtilsConfig("", false, 21049, false, false,
        ConfOverride.parse("f", "mount-watchdog:poll_interval=5")).render())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("section [mount-watchdog] has no key poll_interval");
  }

  @Test
  void overridesThatRedirectOrWeakenTlsAreRefusedInAnyCase() {
    for (String denied : List.of("mount:dns_name_suffix=evil.example", "mount:DNS_NAME_FORMAT={fs_id}.x",
        "mount:stunnel_cafile=/tmp/ca", "mount:stunnel_check_cert_hostname=false",
        "mount:Stunnel_Check_Cert_Validity=false")) {
      assertThatThrownBy(() -> ConfOverride.parse("efs-utils-conf-overrides", denied))
          .as(denied).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--efs-utils-conf-overrides cannot set");
    }
  }

  @Test
  void malformedOverridesAreRefusedNamingTheEntry() {
    for (String malformed : List.of("poll_interval_sec=5", ":key=v", "mount:=v", "mount:key")) {
      assertThatThrownBy(() -> ConfOverride.parse("efs-utils-conf-overrides", malformed))
          .as(malformed).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("\"" + malformed + "\" must look like section:key=value");
    }
    assertThat(ConfOverride.parse("f", " , ")).isEmpty();
    assertThat(ConfOverride.parse("f", "mount:key=a=b")).containsExactly(new ConfOverride("mount", "key", "a=b"));
  }
}
