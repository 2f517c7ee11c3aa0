package io.awscsi.launcher;

import io.awscsi.aws.metadata.InstanceMetadataResolver;
import io.awscsi.aws.tags.TagLimits;
import io.awscsi.core.host.KubeletDirectory;
import io.awscsi.core.logging.LoggingSetup;
import io.awscsi.efs.controller.AccessPointTags;
import io.awscsi.efs.controller.EfsControllerOptions;
import io.awscsi.efs.efsutils.ConfOverride;
import io.awscsi.efs.efsutils.EfsUtilsConfig;
import io.awscsi.efs.efsutils.EfsUtilsDirectories;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.logging.log4j.Level;

/**
 * Everything the serving process is configured with, validated when parsed so a bad flag stops the start with one
 * line saying what to fix. Flag names match the upstream drivers where they overlap.
 */
public record DriverOptions(
    Driver driver,
    Mode mode,
    String endpoint,
    String httpEndpoint,
    LoggingSetup.Format logFormat,
    Level logLevel,
    Duration shutdownGrace,
    String imdsEndpoint,
    List<String> metadataSources,
    String userAgentExtra,
    Optional<Registration> registration,
    Path kubeletDir,
    Ebs ebs,
    Efs efs) {

  public enum Driver {
    EBS("ebs.csi.aws.com"), EFS("efs.csi.aws.com");

    private final String csiName;

    Driver(String csiName) {
      this.csiName = csiName;
    }

    public String csiName() {
      return csiName;
    }
  }

  public enum Mode {
    CONTROLLER, NODE, ALL;

    public boolean controller() {
      return this != NODE;
    }

    public boolean node() {
      return this != CONTROLLER;
    }
  }

  /**
   * The flags of the emulated driver (attachments as loop devices, EFS as local directories), which this driver
   * once had: named so that a serving driver given one says where it went rather than that it does not know it.
   */
  static final List<String> EMULATED_DRIVER_FLAGS =
      List.of("device-backend", "loop-state-dir", "efs-mount-backend", "efs-local-root");

  /**
   * The kubelet plugin registration served by the node plugin itself (in place of node-driver-registrar), with the
   * registrar's flag names: {@code --kubelet-registration-path} (the CSI socket as the kubelet sees it) turns it on.
   */
  public record Registration(String kubeletRegistrationPath, Path pluginRegistrationDir) {}

  /** sun_path's 108 bytes less the NUL, for the registration socket's temporary name (the longest it binds). */
  private static final int MAX_SOCKET_PATH_BYTES = 107;

  /** EBS flags (controller and node). */
  public record Ebs(Map<String, String> extraTags, String k8sTagClusterId, Duration modifyVolumeRequestHandlerTimeout,
      int volumeAttachLimit, int reservedVolumeAttachments, boolean legacyXfs, boolean warnOnInvalidTag) {}

  /**
   * EFS flags (controller and node).
   *
   * @param maxInflightMountCalls the limit in force: {@code --max-inflight-mount-calls} with
   *     {@code --max-inflight-mount-calls-opt-in}, else -1 (none), as upstream
   * @param volumeAttachLimit the node's MaxVolumesPerNode: {@code --volume-attach-limit} with
   *     {@code --volume-attach-limit-opt-in}, else 0 (none), as upstream
   * @param watchdogPath {@code --efs-mount-watchdog-path}; "" finds amazon-efs-mount-watchdog on the search path
   */
  public record Efs(Map<String, String> tags, boolean deleteAccessPointRootDir, boolean volMetricsOptIn,
      Duration volMetricsRefreshPeriod, int volMetricsFsRateLimit, boolean forceUnmountAfterTimeout,
      Duration unmountTimeout, int maxInflightMountCalls, int volumeAttachLimit,
      EfsUtilsDirectories efsUtilsDirectories, List<ConfOverride> efsUtilsConfOverrides,
      boolean cloudWatchLogEnabled, String watchdogPath, Path workDir) {}

  public static DriverOptions parse(String[] args, Map<String, String> env) {
    refuseEmulatedDriverFlags(args);
    UpstreamFlags.refuseUnsupported(args);
    // The flags are those of the one table --help prints.
    Flags f = Usage.SERVE.parse(UpstreamFlags.klogShortVerbosity(args));
    // Every default is the flag table's (Usage.SERVE), the one --help prints and docs/plugin-flags.json carries.
    Driver driver = choice("driver", UpstreamFlags.driver(f), Driver.class);
    Mode mode = choice("mode", UpstreamFlags.mode(f), Mode.class);
    UpstreamFlags.refuseWhatCannotBeHonoured(f);
    String endpoint = f.has("endpoint") ? f.string("endpoint") : env.getOrDefault("CSI_ENDPOINT", f.string("endpoint"));
    // -1: not given, the limit from the instance type.
    int attachLimit = f.has("volume-attach-limit") ? f.integer("volume-attach-limit") : -1;
    int reserved = f.has("reserved-volume-attachments") ? f.integer("reserved-volume-attachments") : -1;
    if (attachLimit >= 0 && reserved >= 0) {
      throw new IllegalArgumentException("--volume-attach-limit and --reserved-volume-attachments cannot be combined");
    }
    Ebs ebs = new Ebs(keyValues("extra-tags", f.string("extra-tags"), ",", "="),
        f.string("k8s-tag-cluster-id"), f.duration("modify-volume-request-handler-timeout"),
        attachLimit, reserved, f.bool("legacy-xfs"), f.bool("warn-on-invalid-tag"));
    // As upstream, both limits count only when opted in; the values alone are what upstream's chart always passes.
    int maxInflight = f.bool("max-inflight-mount-calls-opt-in") && f.has("max-inflight-mount-calls")
        ? f.integer("max-inflight-mount-calls") : -1;
    int efsAttachLimit = f.bool("volume-attach-limit-opt-in") ? Math.max(0, attachLimit) : 0;
    EfsUtilsDirectories efsUtilsDirs = new EfsUtilsDirectories(path(f, "efs-utils-config-dir-path"),
        path(f, "efs-utils-config-legacy-dir-path"), path(f, "efs-utils-static-files-path"),
        path(f, "efs-utils-etc-dir-path"), path(f, "efs-state-dir-path"));
    List<ConfOverride> overrides = ConfOverride.parse("efs-utils-conf-overrides", f.string("efs-utils-conf-overrides"));
    try {
      // An override of a section or key efs-utils.conf does not have stops the start here, naming it.
      new EfsUtilsConfig("", false, 0, false, false, overrides).render();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--efs-utils-conf-overrides: " + e.getMessage(), e);
    }
    Efs efs = new Efs(accessPointTags(keyValues("tags", f.string("tags"), " ", ":")),
        f.bool("delete-access-point-root-dir"), f.bool("vol-metrics-opt-in"),
        refreshPeriod(f.string("vol-metrics-refresh-period")),
        positive("vol-metrics-fs-rate-limit", f.integer("vol-metrics-fs-rate-limit")),
        f.bool("force-unmount-after-timeout"), f.duration("unmount-timeout"), maxInflight,
        efsAttachLimit, efsUtilsDirs, overrides,
        f.bool("efs-cloudwatch-log-enabled"), f.string("efs-mount-watchdog-path").strip(),
        Path.of(f.string("efs-work-dir")));
    Path kubeletDir = kubeletDir(f);
    UpstreamFlags.checkMountPointPrefix(f, kubeletDir);
    return new DriverOptions(driver, mode, endpoint, f.string("http-endpoint"),
        choice("log-format", UpstreamFlags.logFormat(f), LoggingSetup.Format.class),
        UpstreamFlags.logLevel(f, logLevel(f.string("log-level"))), f.duration("shutdown-grace"),
        f.string("imds-endpoint"), metadataSources(f.string("metadata-sources")), f.string("user-agent-extra").strip(),
        registration(f, driver, mode), kubeletDir, ebs, efs);
  }

  /**
   * Refuses a flag of the emulated driver, naming where it went: the loop devices and local directories stand in for
   * EC2 and EFS on a machine without them, and a serving driver has no such code on its class path.
   */
  private static void refuseEmulatedDriverFlags(String[] args) {
    for (String arg : args) {
      if (!arg.startsWith("--")) {
        continue;
      }
      String name = arg.substring(2).split("=", 2)[0];
      if (EMULATED_DRIVER_FLAGS.contains(name)) {
        throw new IllegalArgumentException("--" + name + " is a flag of the emulated driver (loop devices and local"
            + " directories in place of EC2 and EFS), not of a serving one: run `aws-csi-driver emulated` from a"
            + " distribution with lib/local (the local runtime and the test harnesses do)");
      }
    }
  }

  /**
   * {@code --kubelet-dir}: the directory every staging, target and volume path of a node call must lie below. Kept
   * as given here; the node resolves it (links and all) when it starts.
   */
  private static Path kubeletDir(Flags f) {
    String dir = f.string("kubelet-dir").strip();
    if (!dir.startsWith("/") || dir.equals("/")) {
      throw new IllegalArgumentException("--kubelet-dir takes the kubelet's absolute directory (the chart's "
          + "node.kubeletPath, default " + KubeletDirectory.DEFAULT + "), not the root, got " + dir);
    }
    return Path.of(dir).normalize();
  }

  private static Optional<Registration> registration(Flags f, Driver driver, Mode mode) {
    if (!f.has("kubelet-registration-path")) {
      if (f.has("plugin-registration-path")) {
        throw new IllegalArgumentException("--plugin-registration-path needs --kubelet-registration-path (the CSI"
            + " socket as the kubelet sees it), which turns the kubelet plugin registration on");
      }
      return Optional.empty();
    }
    if (!mode.node()) {
      throw new IllegalArgumentException("--kubelet-registration-path registers a node plugin with the kubelet; use"
          + " it with --mode node or all");
    }
    String kubeletPath = f.string("kubelet-registration-path");
    if (!kubeletPath.startsWith("/") || !Path.of(kubeletPath).normalize().toString().equals(kubeletPath)) {
      throw new IllegalArgumentException("--kubelet-registration-path takes the CSI socket's clean absolute path as the"
          + " kubelet sees it, e.g. /var/lib/kubelet/plugins/" + driver.csiName() + "/csi.sock, got " + kubeletPath);
    }
    String dir = f.string("plugin-registration-path");
    if (!dir.startsWith("/")) {
      throw new IllegalArgumentException("--plugin-registration-path takes an absolute directory, got " + dir);
    }
    Path registrationDir = Path.of(dir).normalize();
    String longest = registrationDir.resolve("." + driver.csiName() + "-reg.sock.new").toString();
    if (longest.getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH_BYTES) {
      throw new IllegalArgumentException("--plugin-registration-path " + dir + " is too long for a Unix socket path"
          + " (" + longest + " exceeds " + MAX_SOCKET_PATH_BYTES + " bytes); choose a shorter directory");
    }
    return Optional.of(new Registration(kubeletPath, registrationDir));
  }

  private static <E extends Enum<E>> E choice(String flag, String value, Class<E> type) {
    String wanted = value.trim().toUpperCase().replace('-', '_');
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(wanted)) {
        return e;
      }
    }
    StringBuilder allowed = new StringBuilder();
    for (E e : type.getEnumConstants()) {
      allowed.append(allowed.isEmpty() ? "" : "|").append(e.name().toLowerCase().replace('_', '-'));
    }
    throw new IllegalArgumentException("--" + flag + " must be " + allowed + ", got " + value);
  }

  /** A directory flag; given blank, its default in the table (as upstream's chart may pass an empty value). */
  private static Path path(Flags f, String flag) {
    String value = f.string(flag);
    return Path.of((value.isBlank() ? Usage.SERVE.defaults().get(flag) : value).strip());
  }

  /** {@code --metadata-sources}: known names, in order; an unknown one stops the start naming it. */
  private static List<String> metadataSources(String value) {
    return InstanceMetadataResolver.parseSourceNames(value);
  }

  /** {@code --log-level}: a level log4j does not know reads as the table's default, as it always has. */
  private static Level logLevel(String value) {
    return Level.toLevel(value.strip(), Level.toLevel(Usage.SERVE.defaults().get("log-level")));
  }

  /**
   * {@code --vol-metrics-refresh-period}: minutes, as upstream's flag takes them ({@code 240}, {@code 0.5}), or a
   * duration ({@code 240m}, {@code 90s}).
   */
  static Duration refreshPeriod(String value) {
    String v = value.strip();
    Duration period;
    try {
      period = Duration.ofMillis(Math.round(Double.parseDouble(v) * 60_000));
    } catch (NumberFormatException e) {
      period = Flags.parseDuration("vol-metrics-refresh-period", v);
    }
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("--vol-metrics-refresh-period must be positive (minutes), got " + value);
    }
    return period;
  }

  private static int positive(String flag, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException("--" + flag + " must be positive, got " + value);
    }
    return value;
  }

  /**
   * EFS {@code --tags} when EFS takes them on an access point next to the driver's own: checked at start, so that a
   * bad flag stops the controller instead of failing every CreateVolume at the API.
   */
  static Map<String, String> accessPointTags(Map<String, String> tags) {
    int room = TagLimits.MAX_TAGS - AccessPointTags.OWN_TAGS;
    if (tags.size() > room) {
      throw new IllegalArgumentException("--tags names " + tags.size() + " tags; an access point can have "
          + TagLimits.MAX_TAGS + ", " + AccessPointTags.OWN_TAGS + " of them the driver's own, so at most " + room);
    }
    TagLimits.problem(tags).ifPresent(problem -> {
      throw new IllegalArgumentException("--tags: " + problem);
    });
    return tags;
  }

  /**
   * Parses {@code k=v,k2=v2} (EBS --extra-tags) or {@code k:v k2:v2} (EFS --tags, where a backslash escapes the
   * separator as upstream allows).
   */
  static Map<String, String> keyValues(String flag, String value, String separator, String assign) {
    Map<String, String> out = new LinkedHashMap<>();
    if (value.isBlank()) {
      return out;
    }
    for (String pair : value.trim().split("(?<!\\\\)" + java.util.regex.Pattern.quote(separator) + "+")) {
      String p = pair.replace("\\" + separator, separator);
      int at = p.indexOf(assign);
      if (at <= 0) {
        throw new IllegalArgumentException("--" + flag + " entry '" + p + "' must look like key" + assign + "value");
      }
      out.put(p.substring(0, at).trim(), p.substring(at + 1).trim());
    }
    return out;
  }
}
