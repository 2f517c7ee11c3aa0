package io.awscsi.diagnose;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.File;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * {@code aws-csi-driver diagnose pvc|pod|volumesnapshot|volumegroupsnapshot NAMESPACE/NAME} or {@code diagnose pv NAME}: which stage of
 * the volume is stuck or failed, which component and container hold the answer, what it reported, what that means,
 * what to do, and the driver's own log line for the call. A short-lived command of its own: the Kubernetes client it
 * needs never loads into a serving driver.
 */
public final class DiagnoseCommand {

  static final int EXIT_UNKNOWN = 2;
  private static final Duration DEFAULT_SINCE = Duration.ofHours(1);
  private static final Duration DEFAULT_STUCK_AFTER = Duration.ofMinutes(2);

  static final String HELP = """
      aws-csi-driver diagnose: which stage of a volume is stuck or failed, and which log holds the answer

      aws-csi-driver diagnose pvc NAMESPACE/NAME [flags]
      aws-csi-driver diagnose pod NAMESPACE/NAME [flags]         every claim the pod mounts
      aws-csi-driver diagnose volumesnapshot NAMESPACE/NAME [flags]
      aws-csi-driver diagnose volumegroupsnapshot NAMESPACE/NAME [flags]   EBS group snapshots
      aws-csi-driver diagnose pv NAME [flags]
      aws-csi-driver diagnose --print-table                       the table below, in Markdown (docs/diagnose.md's)
      aws-csi-driver diagnose --print-rbac                        the read-only ClusterRole it needs, as YAML

      It reads, through the Kubernetes API and read-only, the claim's status, conditions and events, its
      StorageClass, the PV, the VolumeAttachments, the pods using the claim and their events, the CSINode and node
      plugin pod of each node concerned, the Leases that say which controller replica leads each sidecar, and
      VolumeSnapshots and VolumeGroupSnapshots with their contents. It names the stage that is stuck or failed (Scheduling, Provisioning,
      Restoring, Attaching, Staging, Publishing, Expanding in the controller, Expanding on the node, Modifying,
      Snapshotting, Group snapshotting, Detaching, Deleting), the component and the exact container that holds the answer (the sidecar
      in the controller pod holding its Lease, or the node plugin on the pod's node), the error that component
      reported, what it means and what to do, and the kubectl commands that show the full logs. It then reads the
      driver's own log through the API (pods/log) and prints its line for the call (method, volume, outcome), from
      text or JSON logs.

      Which log for which stage (the driver's side is always its plugin container, ebs-plugin or efs-plugin):
      %s
      Flags:
        --kubeconfig PATH     the kubeconfig to use (default: KUBECONFIG, ~/.kube/config, or in-cluster)
        --context NAME        the kubeconfig context (default: the current one)
        --since 1h            how far back to read the driver's log (kubectl's durations: 90s, 15m, 2h)
        --stuck-after 2m      work under way longer than this with no error is stuck, younger work in progress
        -o, --output text|json
        --request-timeout 30s for each API request

      Exit code: 0 healthy (or in progress), 1 stuck or failed, 2 could not tell (the reason is printed: not found,
      not a volume of ebs.csi.aws.com or efs.csi.aws.com, API unreachable or forbidden).
      RBAC: get/list on the objects above and pods/log (--print-rbac); the charts offer this read-only ClusterRole
      (diagnose.clusterRole.create=true, bound to diagnose.clusterRole.subjects).
      """;

  private DiagnoseCommand() {}

  /** The help text, with the stage table from {@link Knowledge}. */
  static String help() {
    StringBuilder rows = new StringBuilder();
    for (Knowledge.Stage s : Knowledge.Stage.values()) {
      rows.append(String.format("  %-28s %-16s %s%n", s.title, s.actor.component, s.evidence));
    }
    return HELP.formatted(rows.toString().stripTrailing() + "\n");
  }

  /**
   * Runs the command; the caller owns the process's logging (the launcher sets it to warnings on standard error, so
   * the report is all that reaches standard output).
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("aws-csi-driver diagnose: " + e.getMessage() + " (see aws-csi-driver diagnose --help)");
      return EXIT_UNKNOWN;
    }
    if (options.help()) {
      out.print(help());
      return 0;
    }
    if (options.printTable()) {
      out.print(StageTable.markdown());
      return 0;
    }
    if (options.printRbac()) {
      out.print(ApiReads.clusterRole());
      return 0;
    }
    KubernetesClient client;
    try {
      client = client(options);
    } catch (RuntimeException e) {
      err.println("aws-csi-driver diagnose: cannot configure the Kubernetes client: " + e.getMessage());
      return EXIT_UNKNOWN;
    }
    try (client) {
      List<Diagnosis> diagnoses = diagnose(client, options.target(), options.since(), options.stuckAfter(),
          Clock.systemUTC());
      out.print(options.json() ? Report.json(diagnoses) : Report.text(diagnoses));
      return Report.exitCode(diagnoses);
    }
  }

  /** Reads, infers, and reads the driver's lines: the whole diagnosis of a target. */
  static List<Diagnosis> diagnose(KubernetesClient client, Target target, Duration since, Duration stuckAfter,
      Clock clock) {
    ClusterReader.Read read;
    try {
      read = new ClusterReader(client, clock).read(target);
    } catch (KubernetesClientException e) {
      String where = client.getConfiguration() == null ? "" : " at " + client.getConfiguration().getMasterUrl();
      return List.of(Diagnosis.unknown(target.describe(), "cannot read " + target.describe() + " through the"
          + " Kubernetes API" + where + ": " + ClusterReader.reason(e)));
    }
    StageInference inference = new StageInference(stuckAfter, Durations.words(since), clock);
    DriverLogs logs = new DriverLogs(client, since);
    Function<Diagnosis, Diagnosis> withLog = d -> d.logQuery() == null ? d : d.withDriverLog(logs.find(d.logQuery()));
    List<Diagnosis> diagnoses = new ArrayList<>();
    switch (read) {
      case ClusterReader.Read.Unreadable u -> diagnoses.add(Diagnosis.unknown(target.describe(), u.reason()));
      case ClusterReader.Read.Volumes vs -> {
        vs.volumes().forEach(v -> diagnoses.add(withLog.apply(inference.diagnose(v))));
        vs.classMissing().forEach(c -> diagnoses.add(inference.diagnose(c)));
      }
      case ClusterReader.Read.Snapshot s -> diagnoses.add(withLog.apply(inference.diagnose(s.snapshot())));
      case ClusterReader.Read.GroupSnapshot g -> diagnoses.add(withLog.apply(inference.diagnose(g.group())));
    }
    return diagnoses;
  }

  private static KubernetesClient client(Options o) {
    if (o.kubeconfig() != null && !new File(o.kubeconfig()).canRead()) {
      throw new IllegalArgumentException("--kubeconfig " + o.kubeconfig() + ": no readable file there");
    }
    Config config = o.kubeconfig() != null ? Config.fromKubeconfig(o.context(), new File(o.kubeconfig()))
        : Config.autoConfigure(o.context());
    config.setRequestTimeout((int) o.requestTimeout().toMillis());
    config.setConnectionTimeout((int) Math.min(o.requestTimeout().toMillis(), 10_000));
    config.setRequestRetryBackoffLimit(1);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** The command's flags. */
  record Options(Target target, String kubeconfig, String context, Duration since, Duration stuckAfter,
                 Duration requestTimeout, boolean json, boolean help, boolean printTable, boolean printRbac) {

    static Options parse(String[] args) {
      List<String> positional = new ArrayList<>();
      String kubeconfig = null;
      String context = null;
      Duration since = DEFAULT_SINCE;
      Duration stuckAfter = DEFAULT_STUCK_AFTER;
      Duration timeout = Duration.ofSeconds(30);
      boolean json = false;
      boolean help = false;
      boolean table = false;
      boolean rbac = false;
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        String name = arg;
        String value = null;
        if (arg.startsWith("--") && arg.contains("=")) {
          name = arg.substring(0, arg.indexOf('='));
          value = arg.substring(arg.indexOf('=') + 1);
        }
        switch (name) {
          case "--help", "-h" -> help = true;
          case "--print-table" -> table = true;
          case "--print-rbac" -> rbac = true;
          case "--kubeconfig", "--context", "--since", "--stuck-after", "-o", "--output", "--request-timeout" -> {
            if (value == null) {
              if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
              }
              value = args[++i];
            }
            switch (name) {
              case "--kubeconfig" -> kubeconfig = value;
              case "--context" -> context = value;
              case "--since" -> since = Durations.parse("since", value);
              case "--stuck-after" -> stuckAfter = Durations.parse("stuck-after", value);
              case "--request-timeout" -> timeout = Durations.parse("request-timeout", value);
              default -> json = switch (value) {
                case "json" -> true;
                case "text" -> false;
                default -> throw new IllegalArgumentException("-o takes text or json, got " + value);
              };
            }
          }
          default -> {
            if (arg.startsWith("-")) {
              throw new IllegalArgumentException("unknown flag " + arg);
            }
            positional.add(arg);
          }
        }
      }
      if (help || table || rbac) {
        return new Options(null, kubeconfig, context, since, stuckAfter, timeout, json, help, table, rbac);
      }
      if (positional.size() != 2) {
        throw new IllegalArgumentException("expected KIND NAMESPACE/NAME (or pv NAME), got " + positional);
      }
      return new Options(Target.parse(positional.get(0), positional.get(1)), kubeconfig, context, since, stuckAfter,
          timeout, json, false, false, false);
    }
  }
}
