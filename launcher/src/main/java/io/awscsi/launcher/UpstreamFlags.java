package io.awscsi.launcher;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;

/**
 * Upstream drivers' command-line forms, read in this driver's terms so that upstream's chart arguments and an
 * operator's {@code additionalArgs} keep working: EBS's mode as the first argument, klog's {@code -v}, EFS's command
 * line (no mode, no driver: the EFS-only flags its chart always renders name the pod), and flags that name what this
 * driver always does. A form that asks for what this driver cannot do stops the start saying so.
 */
final class UpstreamFlags {

  /** klog's {@code -v=N} and {@code -v N} (one dash, as Go's flag package also takes it). */
  private static final String KLOG_SHORT_VERBOSITY = "-v";
  /** klog levels from this one up are debug; below, info (the charts' NOTES tell operators the same). */
  static final int KLOG_DEBUG_FROM = 4;
  private static final List<String> MODES = List.of("controller", "node", "all");

  /** Upstream EFS chart renders this in its controller alone (its node never takes it). */
  static final String EFS_CONTROLLER_FLAG = "delete-access-point-root-dir";
  /** Upstream EFS chart renders this in its node alone. */
  static final String EFS_NODE_FLAG = "vol-metrics-opt-in";
  /**
   * Flags only the EBS driver reads: given with an EFS pod's flag and no {@code --driver}, which driver was meant is
   * a guess. ({@code --volume-attach-limit} is not one: the EFS node reads it too, with its opt-in.)
   */
  private static final List<String> EBS_ONLY_FLAGS = List.of("extra-tags", "k8s-tag-cluster-id",
      "modify-volume-request-handler-timeout", "reserved-volume-attachments", "legacy-xfs", "warn-on-invalid-tag",
      "batching", "csi-mount-point-prefix");
  /**
   * Upstream flags that ask for what this driver cannot do, each with why: refused by name, before parsing, so the
   * start stops saying what to do instead of only that the flag is unknown.
   */
  static final Map<String, String> REFUSED = refused();

  private static Map<String, String> refused() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("adaptive-retry-mode", "asks for the AWS SDK's retry mode (adaptive: client-side rate limiting); this"
        + " driver retries AWS calls itself (throttling and server faults, exponential backoff with jitter, bounded by"
        + " the call's deadline) and has no SDK retry mode to choose; drop the flag");
    m.put("metrics-cert-file", "/metrics is served over plain HTTP here (--http-endpoint); put TLS in front of it"
        + " (e.g. a proxy sidecar) and drop the flag");
    m.put("metrics-key-file", m.get("metrics-cert-file"));
    return Map.copyOf(m);
  }

  private UpstreamFlags() {}

  /** Refuses a flag of {@link #REFUSED}, in any form ({@code --f}, {@code --f=v}, {@code -f}), saying why. */
  static void refuseUnsupported(String[] args) {
    for (String arg : args) {
      if (!arg.startsWith("-")) {
        continue;
      }
      String name = arg.replaceFirst("^--?", "").split("=", 2)[0];
      if (REFUSED.containsKey(name)) {
        throw new IllegalArgumentException("--" + name + ": " + REFUSED.get(name));
      }
    }
  }

  /**
   * The driver: {@code --driver}, else {@code efs} when an EFS pod's flag that upstream EFS's chart always renders
   * ({@code --delete-access-point-root-dir}, {@code --vol-metrics-opt-in}) is given, else the table's default
   * ({@code ebs}). Such a flag with an EBS-only flag and no {@code --driver} is refused naming both.
   */
  static String driver(Flags f) {
    if (f.has("driver")) {
      return f.string("driver");
    }
    List<String> efs = efsPodFlags(f);
    if (efs.isEmpty()) {
      return f.string("driver");
    }
    List<String> ebs = EBS_ONLY_FLAGS.stream().filter(f::has).map(n -> "--" + n).toList();
    if (!ebs.isEmpty()) {
      throw new IllegalArgumentException(String.join(" and ", efs) + " (upstream EFS's) and " + String.join(", ", ebs)
          + " (EBS's) name different drivers; give --driver ebs or --driver efs");
    }
    return "efs";
  }

  private static List<String> efsPodFlags(Flags f) {
    return Stream.of(EFS_CONTROLLER_FLAG, EFS_NODE_FLAG).filter(f::has).map(n -> "--" + n).toList();
  }

  /**
   * Upstream EFS's pod, when neither {@code --driver} nor a mode is given: {@code --delete-access-point-root-dir}
   * (its controller's) makes it the controller, {@code --vol-metrics-opt-in} (its node's) the node, both is refused
   * naming them; else the table's default mode. With {@code --driver} the command line is this driver's own, whose
   * mode defaults to {@code all}.
   */
  private static String modeWithoutArgument(Flags f) {
    if (f.has("mode") || f.has("driver")) {
      return f.string("mode");
    }
    boolean controller = f.has(EFS_CONTROLLER_FLAG);
    boolean node = f.has(EFS_NODE_FLAG);
    if (controller && node) {
      throw new IllegalArgumentException("--" + EFS_CONTROLLER_FLAG + " (upstream EFS's controller) and --"
          + EFS_NODE_FLAG + " (its node) name different pods; give --mode controller, node or all");
    }
    return controller ? "controller" : node ? "node" : f.string("mode");
  }

  /** {@code args} with klog's one-dash {@code -v} written as {@code --v}, which the flag table knows. */
  static String[] klogShortVerbosity(String[] args) {
    String[] out = args.clone();
    for (int i = 0; i < out.length; i++) {
      if (out[i].equals(KLOG_SHORT_VERBOSITY) || out[i].startsWith(KLOG_SHORT_VERBOSITY + "=")) {
        out[i] = "-" + out[i];
      }
    }
    return out;
  }

  /**
   * The mode: upstream's first argument ({@code controller}, {@code node}, {@code all}) or {@code --mode}; both given
   * must agree. Any other argument is an error naming it.
   */
  static String mode(Flags f) {
    List<String> positional = f.positional();
    if (positional.isEmpty()) {
      return modeWithoutArgument(f);
    }
    String first = positional.getFirst();
    if (!MODES.contains(first) || positional.size() > 1) {
      String unexpected = MODES.contains(first) ? positional.get(1) : first;
      throw new IllegalArgumentException("unexpected argument " + unexpected + " (the one argument taken is the mode: "
          + String.join(", ", MODES) + "; see --help)");
    }
    if (f.has("mode") && !f.string("mode").strip().toLowerCase(Locale.ROOT).equals(first)) {
      throw new IllegalArgumentException("the mode argument " + first + " and --mode " + f.string("mode")
          + " disagree; give one of them");
    }
    return first;
  }

  /** Upstream flags whose other value asks for what this driver does not do. */
  static void refuseWhatCannotBeHonoured(Flags f) {
    if (f.has("logtostderr") && !f.bool("logtostderr")) {
      throw new IllegalArgumentException("--logtostderr=false: this driver logs to stderr only (the container's log);"
          + " drop the flag");
    }
    if (f.has("s3files-utils-conf-overrides") && !f.string("s3files-utils-conf-overrides").isBlank()) {
      throw new IllegalArgumentException("--s3files-utils-conf-overrides: this driver does not mount Amazon S3 Files"
          + " (provisioningMode s3files-ap is refused), so there is no s3files-utils.conf to override; drop the flag");
    }
    if (f.has("batching") && !f.bool("batching")) {
      throw new IllegalArgumentException("--batching=false: this driver always batches DescribeVolumes and"
          + " DescribeSnapshots of concurrent operations, which cannot be turned off here; drop the flag");
    }
  }

  /** {@code --logging-format} or {@code --log-format} (the table's default without either); both must agree. */
  static String logFormat(Flags f) {
    if (!f.has("logging-format")) {
      return f.string("log-format");
    }
    String upstream = f.string("logging-format");
    if (f.has("log-format") && !f.string("log-format").strip().equalsIgnoreCase(upstream.strip())) {
      throw new IllegalArgumentException("--logging-format " + upstream + " and --log-format "
          + f.string("log-format") + " disagree; give one of them");
    }
    return upstream;
  }

  /**
   * klog's {@code --v=N} as a level (0-3 info, 4 and up debug), else {@code logLevel} (from {@code --log-level}).
   * Both given must mean the same level: which one wins would be a guess.
   */
  static Level logLevel(Flags f, Level logLevel) {
    if (f.bool("debug-logs")) {
      // Upstream EFS sets klog's -v to 5 over whatever --v says (its chart renders both); efs-utils logs at DEBUG
      // too, which the node's efs-utils.conf follows from the level.
      if (f.has("log-level") && !logLevel.equals(Level.DEBUG)) {
        throw new IllegalArgumentException("--debug-logs (log level debug) and --log-level " + f.string("log-level")
            + " disagree; give one of them");
      }
      return Level.DEBUG;
    }
    if (!f.has("v")) {
      return logLevel;
    }
    String v = f.string("v").strip();
    int klog;
    try {
      klog = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      klog = -1;
    }
    if (klog < 0) {
      throw new IllegalArgumentException("--v takes klog's verbosity, a whole number from 0, got " + v);
    }
    Level level = klog >= KLOG_DEBUG_FROM ? Level.DEBUG : Level.INFO;
    if (f.has("log-level") && !logLevel.equals(level)) {
      throw new IllegalArgumentException("--v=" + v + " (log level " + level.name().toLowerCase(Locale.ROOT)
          + ") and --log-level " + f.string("log-level") + " disagree; give one of them");
    }
    return level;
  }

  /**
   * Upstream's {@code --csi-mount-point-prefix}: where the kubelet mounts this driver's volumes, which upstream's node
   * uses only to pick the volumes of its NVMe metrics. Here {@code --kubelet-dir} is what says where node paths lie
   * (every one is confined below it), so the prefix changes nothing; it must be an absolute path. One outside
   * {@code --kubelet-dir} is accepted too: upstream starts with it, and refusing it would stop a node that runs.
   */
  static void checkMountPointPrefix(Flags f, Path kubeletDir) {
    if (!f.has("csi-mount-point-prefix")) {
      return;
    }
    String prefix = f.string("csi-mount-point-prefix").strip();
    if (!prefix.startsWith("/")) {
      throw new IllegalArgumentException("--csi-mount-point-prefix takes an absolute path (upstream's chart passes "
          + kubeletDir + "/plugins/kubernetes.io/csi/ebs.csi.aws.com/), got " + prefix);
    }
  }
}
