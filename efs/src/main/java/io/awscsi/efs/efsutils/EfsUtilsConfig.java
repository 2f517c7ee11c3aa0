package io.awscsi.efs.efsutils;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code efs-utils.conf} the node writes at every start, with the settings upstream's node writes: the region
 * (when configured, else efs-utils asks instance metadata), FIPS mode, the TLS proxies' port range, retries of the NFS
 * mount, the watchdog's {@code [mount-watchdog]} settings, the partitions' DNS suffixes, then the operator's
 * overrides. Written whole each time, so a setting removed from the flags does not linger from an earlier start.
 *
 * @param region the file systems' region, "" to let efs-utils read it from instance metadata
 * @param portRangeUpperBound the last local port a TLS proxy may take (from 20049); at least 21049
 * @param debugLogging efs-utils logs at DEBUG instead of INFO
 * @param cloudWatchLogEnabled efs-utils sends its logs to CloudWatch ({@code --efs-cloudwatch-log-enabled})
 * @param overrides {@code --efs-utils-conf-overrides}, applied last
 */
public record EfsUtilsConfig(String region, boolean fipsEnabled, int portRangeUpperBound, boolean debugLogging,
    boolean cloudWatchLogEnabled, List<ConfOverride> overrides) {

  public static final String FILE_NAME = "efs-utils.conf";
  /** 1,000 ports from 20049: fewer ran out on busy nodes ("Failed to locate an available port"). */
  public static final int MIN_PORT_RANGE_UPPER_BOUND = 21049;
  /** Tells the EFS service which client mounted (upstream's node writes the same). */
  static final String CLIENT_SOURCE = "k8s";

  public EfsUtilsConfig {
    region = region == null ? "" : region.strip();
    if (portRangeUpperBound < MIN_PORT_RANGE_UPPER_BOUND) {
      portRangeUpperBound = MIN_PORT_RANGE_UPPER_BOUND;
    }
    overrides = List.copyOf(overrides);
  }

  /**
   * The settings upstream reads from the node's environment: {@code AWS_DEFAULT_REGION} (then {@code AWS_REGION}),
   * {@code FIPS_ENABLED=true}, {@code PORT_RANGE_UPPER_BOUND} (below 21049 or not a number gives 21049).
   */
  public static EfsUtilsConfig fromEnvironment(Map<String, String> env, boolean debugLogging,
      boolean cloudWatchLogEnabled, List<ConfOverride> overrides) {
    String region = env.getOrDefault("AWS_DEFAULT_REGION", "");
    if (region.isBlank()) {
      region = env.getOrDefault("AWS_REGION", "");
    }
    int upper;
    try {
      upper = Integer.parseInt(env.getOrDefault("PORT_RANGE_UPPER_BOUND", "").strip());
    } catch (NumberFormatException e) {
      upper = MIN_PORT_RANGE_UPPER_BOUND;
    }
    boolean fips = env.getOrDefault("FIPS_ENABLED", "").strip().toLowerCase(Locale.ROOT).equals("true");
    return new EfsUtilsConfig(region, fips, upper, debugLogging, cloudWatchLogEnabled, overrides);
  }

  /**
   * The file's text.
   *
   * @throws IllegalArgumentException when an override names a section or key the file does not have
   */
  public String render() {
    String text = TEMPLATE
        .replace("@LOGGING_LEVEL@", debugLogging ? "DEBUG" : "INFO")
        .replace("@REGION@", region.isEmpty() ? "#region = us-east-1" : "region = " + region)
        .replace("@FIPS@", Boolean.toString(fipsEnabled))
        .replace("@PORT_UPPER@", Integer.toString(portRangeUpperBound))
        .replace("@CLOUDWATCH@", Boolean.toString(cloudWatchLogEnabled))
        .replace("@SOURCE@", CLIENT_SOURCE);
    return ConfOverride.apply(text, overrides);
  }

  private static final String PKI_BUNDLE = "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem";

  private static final String TEMPLATE = """
      # Written by the EFS CSI node plugin at every start (aws-csi-driver); edits here are replaced.
      # Change settings with --efs-utils-conf-overrides section:key=value instead.

      [DEFAULT]
      logging_level = @LOGGING_LEVEL@
      logging_max_bytes = 1048576
      logging_file_count = 10
      # octal mode of /var/run/efs and the directories below it
      state_file_dir_mode = 750

      [mount]
      dns_name_format = {az}.{fs_id}.efs.{region}.{dns_name_suffix}
      dns_name_suffix = amazonaws.com
      # the file systems' region; unset, efs-utils reads it from instance metadata
      @REGION@
      stunnel_debug_enabled = false
      #stunnel_logs_file = /var/log/amazon/efs/{fs_id}.stunnel.log
      stunnel_cafile = /etc/amazon/efs/efs-utils.crt
      stunnel_check_cert_hostname = true
      stunnel_check_cert_validity = false
      fips_mode_enabled = @FIPS@
      # local ports of the TLS proxies (one per mount)
      port_range_lower_bound = 20049
      port_range_upper_bound = @PORT_UPPER@
      optimize_readahead = true
      # mount by the mount target's IP address when its DNS name does not resolve
      fall_back_to_mount_target_ip_address_enabled = true
      disable_fetch_ec2_metadata_token = false
      # mount.nfs attempts that hang or are reset are cut after the timeout and tried again, the last one uncut
      retry_nfs_mount_command = true
      retry_nfs_mount_command_count = 3
      retry_nfs_mount_command_timeout_sec = 15

      [mount.cn-north-1]
      dns_name_suffix = amazonaws.com.cn

      [mount.cn-northwest-1]
      dns_name_suffix = amazonaws.com.cn

      [mount.eu-isoe-west-1]
      dns_name_suffix = cloud.adc-e.uk
      stunnel_cafile = @PKI@

      [mount.eusc-de-east-1]
      dns_name_suffix = amazonaws.eu
      stunnel_cafile = @PKI@

      [mount.us-iso-east-1]
      dns_name_suffix = c2s.ic.gov
      stunnel_cafile = @PKI@

      [mount.us-iso-west-1]
      dns_name_suffix = c2s.ic.gov
      stunnel_cafile = @PKI@

      [mount.us-isob-east-1]
      dns_name_suffix = sc2s.sgov.gov
      stunnel_cafile = @PKI@

      [mount.us-isob-west-1]
      dns_name_suffix = sc2s.sgov.gov
      stunnel_cafile = @PKI@

      [mount.us-isof-east-1]
      dns_name_suffix = csp.hci.ic.gov
      stunnel_cafile = @PKI@

      [mount.us-isof-south-1]
      dns_name_suffix = csp.hci.ic.gov
      stunnel_cafile = @PKI@

      [mount-watchdog]
      enabled = true
      # how often the watchdog checks the mounts' proxies (and starts a dead one again)
      poll_interval_sec = 1
      unmount_count_for_consistency = 5
      # how long after an unmount the proxy and its state are kept
      unmount_grace_period_sec = 30
      # renewal of access point / IAM client certificates, in minutes (at least 1)
      tls_cert_renewal_interval_min = 60
      stunnel_health_check_enabled = true
      stunnel_health_check_interval_min = 5
      stunnel_health_check_command_timeout_sec = 30

      [client-info]
      source = @SOURCE@

      [cloudwatch-log]
      enabled = @CLOUDWATCH@
      log_group_name = /aws/efs/utils
      # 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1827 or 3653
      retention_in_days = 14
      """.replace("@PKI@", PKI_BUNDLE);
}
