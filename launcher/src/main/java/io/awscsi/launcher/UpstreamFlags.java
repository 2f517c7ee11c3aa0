package io.awscsi.launcher;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.logging.log4j.Level;

/**
 * Upstream EBS driver's command-line forms, read in this driver's terms so that upstream's chart arguments and an
 * operator's {@code additionalArgs} keep working: the mode as the first argument, klog's {@code -v}, and flags that
 * name what this driver always does. A form that asks for what this driver cannot do stops the start saying so.
 */
final class UpstreamFlags {

  /** klog's {@code -v=N} and {@code -v N} (one dash, as Go's flag package also takes it). */
  private static final String KLOG_SHORT_VERBOSITY = "-v";
  /** klog levels from this one up are debug; below, info (the charts' NOTES tell operators the same). */
  static final int KLOG_DEBUG_FROM = 4;
  private static final List<String> MODES = List.of("controller", "node", "all");

  private UpstreamFlags() {}

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
      return f.string("mode");
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
