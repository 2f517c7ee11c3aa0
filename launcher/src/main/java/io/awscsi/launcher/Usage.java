package io.awscsi.launcher;

import io.awscsi.aws.metadata.InstanceMetadataResolver;
import io.awscsi.core.host.KubeletDirectory;
import io.awscsi.efs.controller.EfsControllerOptions;
import io.awscsi.efs.efsutils.EfsUtilsDirectories;
import io.awscsi.launcher.FlagTable.Flag;
import java.util.List;

/** The flag tables of every command and the {@code --help} text made from them. */
public final class Usage {

  private static final String COMMON = "Common";
  private static final String EBS = "EBS";
  private static final String EFS = "EFS";
  private static final String UPSTREAM = "Upstream EBS driver's flags, so that its chart's arguments and"
      + " additionalArgs keep working (docs/parameters.md)";
  private static final String UPSTREAM_EFS = "Upstream EFS driver's flags, so that its chart's arguments keep"
      + " working (docs/parameters.md); without --driver and a mode, --delete-access-point-root-dir makes the EFS"
      + " controller and --vol-metrics-opt-in the EFS node, as upstream's chart renders them";
  private static final String REGISTRATION = "Kubelet plugin registration in the node plugin, in place of"
      + " node-driver-registrar (modes node and all)";

  /** {@code aws-csi-driver [serve]}: the driver itself. */
  static final FlagTable SERVE = new FlagTable("aws-csi-driver [serve]", List.of(
      Flag.of(COMMON, "driver", "ebs|efs", "ebs", "which driver"),
      Flag.of(COMMON, "mode", "controller|node|all", "all", "which services"),
      Flag.of(COMMON, "endpoint", "unix:///csi/csi.sock", "unix:///tmp/csi.sock", "CSI socket, else env CSI_ENDPOINT;"
          + " unix:/abs/path also accepted"),
      Flag.of(COMMON, "http-endpoint", ":3301", "serve /livez (/healthz), /readyz and Prometheus /metrics"),
      Flag.of(COMMON, "log-format", "text|json", "text", "log line format"),
      Flag.of(COMMON, "log-level", "info|debug|warn|error", "info", "debug adds request bodies, redacted"),
      Flag.of(COMMON, "shutdown-grace", "DURATION", "25s", "time running calls get after SIGTERM"),
      Flag.of(COMMON, "imds-endpoint", "URL", "instance metadata endpoint (default the SDK's)"),
      Flag.of(COMMON, "metadata-sources", "imds,kubernetes", InstanceMetadataResolver.DEFAULT_SOURCES, "where the"
          + " node (and a controller without AWS_REGION) reads instance metadata, in this order: imds, kubernetes or"
          + " both"),
      Flag.of(COMMON, "user-agent-extra", "TEXT", "appended to the user agent of the EC2, EFS and STS clients"),
      Flag.of(COMMON, "kubelet-dir", "DIR", KubeletDirectory.DEFAULT.toString(), "the kubelet's directory as this"
          + " process sees it (the chart's node.kubeletPath): node calls mount only below it"),
      Flag.of(COMMON, "version", "", "print the version and exit"),
      Flag.of(COMMON, "help", "", "print this text and exit"),
      Flag.of(REGISTRATION, "kubelet-registration-path", "PATH", "the CSI socket as the kubelet sees it, e.g."
          + " /var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock; turns it on"),
      Flag.of(REGISTRATION, "plugin-registration-path", "DIR", "/var/lib/kubelet/plugins_registry", "the kubelet's"
          + " plugin registration directory, where <driver>-reg.sock is served"),
      Flag.of(EBS, "extra-tags", "k=v,k2=v2", "tags for every volume and snapshot"),
      Flag.of(EBS, "k8s-tag-cluster-id", "ID", "adds the cluster ownership tags"),
      Flag.of(EBS, "modify-volume-request-handler-timeout", "DURATION", "2s", "window that merges expand and"
          + " modify requests"),
      Flag.of(EBS, "volume-attach-limit", "N", "attach limit reported by the node (default from the instance type)"),
      Flag.of(EBS, "reserved-volume-attachments", "N", "attachments not available to CSI volumes"),
      Flag.of(EBS, "legacy-xfs", "", "make xfs that mounts on kernels <= 5.4"),
      Flag.of(EBS, "warn-on-invalid-tag", "", "drop a reserved or invalid tag of --extra-tags or tagSpecification_N"
          + " with a warning instead of refusing it"),
      Flag.of(UPSTREAM, "v", "N", "klog verbosity: 0-3 is --log-level info, 4 and up debug; with --log-level both must"
          + " agree (also -v=N)"),
      Flag.of(UPSTREAM, "logging-format", "text|json", "the same as --log-format; with it both must agree"),
      Flag.of(UPSTREAM, "logtostderr", "", "accepted: the log always goes to stderr (=false is refused)"),
      Flag.of(UPSTREAM, "batching", "", "accepted: DescribeVolumes is always batched here (=false is refused)"),
      Flag.of(UPSTREAM, "csi-mount-point-prefix", "PATH", "accepted, no effect: --kubelet-dir says where node paths"
          + " lie here"),
      Flag.of(EFS, "tags", "\"k:v k2:v2\"", "tags for every access point"),
      Flag.of(EFS, "delete-access-point-root-dir", "", "DeleteVolume also deletes the volume's directory"),
      Flag.of(EFS, "vol-metrics-opt-in", "", "report volume usage in NodeGetVolumeStats"),
      Flag.of(EFS, "vol-metrics-refresh-period", "MINUTES", "240", "how often volume usage is measured (minutes,"
          + " or a duration like 240m)"),
      Flag.of(EFS, "vol-metrics-fs-rate-limit", "N", "5", "usage measurements running at once"),
      Flag.of(EFS, "force-unmount-after-timeout", "", "lazy-unmount a target that does not unmount in time"),
      Flag.of(EFS, "unmount-timeout", "DURATION", "30s", "time an unmount may take"),
      Flag.of(EFS, "max-inflight-mount-calls-opt-in", "", "count --max-inflight-mount-calls (as upstream)"),
      Flag.of(EFS, "max-inflight-mount-calls", "N", "NodePublish calls mounting at once, beyond: ABORTED (default no "
          + "limit)"),
      Flag.of(EFS, "volume-attach-limit-opt-in", "", "report --volume-attach-limit as the EFS node's MaxVolumesPerNode"),
      Flag.of(EFS, "efs-utils-conf-overrides", "section:key=value,...", "efs-utils.conf settings over the node's own"),
      Flag.of(EFS, "efs-cloudwatch-log-enabled", "", "efs-utils sends its logs to CloudWatch"),
      Flag.of(EFS, "efs-utils-config-dir-path", "DIR", EfsUtilsDirectories.DEFAULT.configDir().toString(),
          "efs-utils configuration on the host"),
      Flag.of(EFS, "efs-utils-config-legacy-dir-path", "DIR", EfsUtilsDirectories.DEFAULT.legacyConfigDir().toString(),
          "an earlier driver's configuration"),
      Flag.of(EFS, "efs-utils-static-files-path", "DIR", EfsUtilsDirectories.DEFAULT.staticFilesDir().toString(),
          "the image's efs-utils files"),
      Flag.of(EFS, "efs-mount-watchdog-path", "PATH", "the watchdog the node keeps running (default "
          + "amazon-efs-mount-watchdog on PATH)"),
      Flag.of(EFS, "efs-utils-etc-dir-path", "DIR", EfsUtilsDirectories.DEFAULT.etcDir().toString(),
          "the link efs-utils reads (tests)"),
      Flag.of(EFS, "efs-state-dir-path", "DIR", EfsUtilsDirectories.DEFAULT.stateDir().toString(),
          "the proxies' state (tests)"),
      Flag.of(EFS, "efs-work-dir", "DIR", EfsControllerOptions.DEFAULT_WORK_DIR.toString(), "where the controller"
          + " mounts file systems for efs-dir volumes and --delete-access-point-root-dir, one directory per file"
          + " system, as upstream"),
      Flag.of(UPSTREAM_EFS, "debug-logs", "", "the same as --log-level debug (efs-utils logs at DEBUG too); over --v,"
          + " as upstream"),
      Flag.of(UPSTREAM_EFS, "s3files-cloudwatch-log-enabled", "", "accepted, no effect: no Amazon S3 Files volumes"
          + " are mounted here"),
      Flag.of(UPSTREAM_EFS, "s3files-cloudwatch-metrics-enabled", "", "accepted, no effect: no Amazon S3 Files"
          + " volumes are mounted here"),
      Flag.of(UPSTREAM_EFS, "s3files-utils-conf-overrides", "section:key=value,...", "accepted empty; any override"
          + " is refused: no Amazon S3 Files volumes are mounted here")));

  /** {@code aws-csi-driver local}: both drivers on emulated AWS (io.awscsi.local, in lib/local). */
  public static final FlagTable LOCAL = new FlagTable("aws-csi-driver local", List.of(
      Flag.of("", "driver", "ebs|efs|both|none", "which drivers (default both; none: emulated AWS only)"),
      Flag.of("", "work-dir", "DIR", "sockets, loop files and mounts (default /tmp/aws-csi-local)"),
      Flag.of("", "kubelet-dir", "DIR", "where node calls may stage and publish (default the work directory)"),
      Flag.of("", "profile", "realistic|fast|instant", "emulated AWS latencies and throttling (default realistic)"),
      Flag.of("", "volume-initialization", "DURATION", "how long a volume restored from a snapshot stays"
          + " initializing (DescribeVolumeStatus), e.g. 45s (default the profile's: realistic 30m, fast 3s)"),
      Flag.of("", "no-lifecycle", "", "serve without walking volumes through their life first"),
      Flag.of("", "exit", "", "exit after the walkthrough with its result"),
      Flag.of("", "log-level", "warn|info|debug", "driver log level (default warn)"),
      Flag.of("", "env-file", "FILE", "write emulated AWS's endpoints, the node's instance and the EFS file system"
          + " there as KEY=value lines, for driver processes started elsewhere"),
      Flag.of("", "help", "", "print this text and exit")));

  /** {@code aws-csi-driver client}: one RPC by hand. */
  static final FlagTable CLIENT = new FlagTable("aws-csi-driver client", List.of(
      Flag.of("", "endpoint", "unix:///path", "the driver's socket (env CSI_ENDPOINT)")));

  /** {@code aws-csi-driver remove-startup-taint}: the node's child process. */
  static final FlagTable REMOVE_STARTUP_TAINT = new FlagTable("aws-csi-driver " + StartupTaintCommand.NAME, List.of(
      Flag.of("", "driver", "ebs|efs", "whose startup taint"),
      Flag.of("", "log-format", "text|json", "(default text)"),
      Flag.of("", "log-level", "info|debug", "(default info)")));

  private Usage() {}

  static String text() {
    return """
        aws-csi-driver: CSI driver for Amazon EBS (ebs.csi.aws.com) and Amazon EFS (efs.csi.aws.com)

        %s
        %s
        %s RPC ['{json request}']
        aws-csi-driver diagnose pvc|pod|volumesnapshot NAMESPACE/NAME | pv NAME [-o json] [--since 1h]
                                       which stage of a volume is stuck, which log says why (diagnose --help)
        aws-csi-driver pre-stop-hook
        %s   (the node runs it as a child process)

        aws-csi-driver [serve]:
        %s
        aws-csi-driver local:
        %s
        Environment: AWS_REGION, AWS_ENDPOINT_URL[_EC2|_EFS|_STS], CSI_NODE_NAME, DISABLE_TAINT_WATCHER,
                     AWS_EC2_METADATA_DISABLED; EFS node: AWS_DEFAULT_REGION, FIPS_ENABLED, PORT_RANGE_UPPER_BOUND
        """.formatted("aws-csi-driver [serve|controller|node|all] --driver ebs|efs [--mode controller|node|all]"
        + " [flags]",
        LOCAL.synopsis(), CLIENT.synopsis(), REMOVE_STARTUP_TAINT.synopsis(), SERVE.help(), LOCAL.help());
  }
}
