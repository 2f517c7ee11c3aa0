package io.awscsi.diagnose;

import static io.awscsi.diagnose.Views.handle;

import io.awscsi.diagnose.Diagnosis.LogQuery;
import io.awscsi.diagnose.Diagnosis.Verdict;
import io.awscsi.diagnose.Knowledge.Actor;
import io.awscsi.diagnose.Knowledge.KnownError;
import io.awscsi.diagnose.Knowledge.Stage;
import io.awscsi.diagnose.Views.DriverState;
import io.awscsi.diagnose.Views.VolumeView;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A finding in words, from {@link Knowledge}: the component and the exact container that holds the answer, what the
 * error means and what to do, the kubectl commands that show the full logs, and where the driver's line for the call
 * is ({@link LogQuery}).
 */
final class Wording {

  /** The --since of the commands, e.g. {@code 1h}. */
  private final String since;

  Wording(String since) {
    this.since = since;
  }

  /** A finding in words: component and place from the knowledge, the known error's meaning, the commands. */
  Diagnosis word(String subject, Finding f, DriverState driver, String volumeId, String pv,
      String storageClass, PersistentVolumeClaim pvc, List<String> seen, List<String> gaps, List<String> also,
      LogQuery query) {
    if (f.verdict() == Verdict.HEALTHY) {
      return new Diagnosis(subject, f.verdict(), f.summary(), null, "", "", "", "", "", "", List.of(), seen, gaps,
          also, volumeId, "", null, null);
    }
    Optional<KnownError> known = Knowledge.explain(f.stage(), f.error());
    if (known.isEmpty() && f.verdict() == Verdict.FAILED && f.stage().csiMethod != null && !f.error().isEmpty()
        && !Knowledge.carriesDriverReply(f.error())) {
      known = Optional.of(Knowledge.NO_DRIVER_CALL);
    }
    Actor actor = known.map(KnownError::blames).filter(b -> b != null).orElse(f.actor());
    String meaning = known.map(KnownError::meaning).orElse(f.stage().meaning);
    String action = known.map(KnownError::action).orElse(f.stage().action);
    Map<String, String> values = Map.of("{nodeApp}", driver.driver().nodeApp(), "{volumeId}",
        volumeId.isEmpty() ? "VOLUME_ID" : volumeId, "{pv}", pv.isEmpty() ? "PV" : pv, "{storageClass}",
        storageClass.isEmpty() ? "CLASS" : storageClass, "{component}", f.actor() == Actor.NODE_PLUGIN ? "the kubelet"
            : f.actor().component, "{call}", Objects.requireNonNullElse(f.stage().csiMethod, "call"));
    for (var e : values.entrySet()) {
      action = action.replace(e.getKey(), e.getValue());
      meaning = meaning.replace(e.getKey(), e.getValue());
    }
    boolean blamesNodePlugin = actor == Actor.NODE_PLUGIN && f.actor() != Actor.NODE_PLUGIN;
    String summary = f.stage().title + " " + f.verdict().words + ": " + f.summary()
        + (blamesNodePlugin ? "; " + driver.notRegistered(f.node()) : "");
    List<String> commands = commands(actor, f, driver, volumeId, pv, pvc);
    // The node plugin the message blames holds the answer, not the component that reported it: read its log, or say
    // there is none.
    LogQuery q = query;
    Diagnosis.DriverLog none = null;
    if (blamesNodePlugin) {
      Pod plugin = driver.nodePlugins().get(f.node());
      q = plugin == null ? null : nodeQuery(driver, f.node(), Stage.STAGING.csiMethod, volumeId);
      none = plugin == null ? new Diagnosis.DriverLog("", "", driver.driver().pluginContainer(), null, "no "
          + driver.driver().nodeApp() + " pod runs on " + f.node() + ": there is no node plugin log to read") : null;
    }
    return new Diagnosis(subject, f.verdict(), summary, f.stage(), actor.component, where(actor, driver, f.node()),
        f.error(), known.map(KnownError::id).orElse(""), meaning, action, commands, seen, gaps, also,
        volumeId, f.node(), q, none);
  }

  /** The exact place that holds the answer, e.g. "csi-attacher in kube-system/ebs-csi-controller-5c9f (the Lease holder)". */
  static String where(Actor actor, DriverState driver, String node) {
    return switch (actor) {
      case SCHEDULER -> "kube-scheduler (its message is in the pod's events)";
      case CONTROLLER_MANAGER -> "kube-controller-manager (its messages are in the events of the pod and claim)";
      case SNAPSHOT_CONTROLLER -> "snapshot-controller (Lease snapshot-controller-leader; the VolumeSnapshot's"
          + " events)";
      case NODE_PLUGIN -> {
        Pod plugin = driver.nodePlugins().get(node);
        String on = "the node plugin on " + (node.isEmpty() ? "the pod's node" : node);
        yield plugin == null ? on + " (no " + driver.driver().nodeApp() + " pod there)"
            : on + " (" + plugin.getMetadata().getNamespace() + "/" + plugin.getMetadata().getName() + ", container "
                + driver.driver().pluginContainer() + ")";
      }
      default -> {
        Driver d = driver.driver();
        Optional<Pod> holder = driver.leaseHolder(actor);
        if (holder.isPresent()) {
          yield actor.component + " in " + holder.get().getMetadata().getNamespace() + "/"
              + holder.get().getMetadata().getName() + " (the Lease holder)";
        }
        Optional<String> holderName = driver.leaseHolderName(actor);
        yield holderName.map(h -> actor.component + " in " + h + " (the Lease holder; no pod of that name)")
            .orElse(actor.component + " (no replica holds the Lease " + actor.leaseName(d) + ")");
      }
    };
  }

  private List<String> commands(Actor actor, Finding f, DriverState driver, String volumeId, String pv,
      PersistentVolumeClaim pvc) {
    Driver d = driver.driver();
    List<String> commands = new ArrayList<>();
    String grep = volumeId.isEmpty() ? "" : " | grep " + volumeId;
    switch (actor) {
      case NODE_PLUGIN -> {
        Pod plugin = driver.nodePlugins().get(f.node());
        if (plugin != null) {
          commands.add("kubectl -n " + plugin.getMetadata().getNamespace() + " logs " + plugin.getMetadata().getName()
              + " -c " + d.pluginContainer() + " --since=" + since + grep);
        } else {
          commands.add("kubectl get pods -A -l app=" + d.nodeApp() + " -o wide");
          commands.add("kubectl describe daemonset -A -l app.kubernetes.io/name=aws-" + d.prefix + "-csi-driver");
        }
        if (!f.node().isEmpty()) {
          commands.add("journalctl -u kubelet --since -" + since + (pv.isEmpty() ? "" : " | grep " + pv)
              + "   (on node " + f.node() + ")");
        }
      }
      case SCHEDULER, CONTROLLER_MANAGER, SNAPSHOT_CONTROLLER -> {
        if (actor == Actor.SNAPSHOT_CONTROLLER) {
          commands.add("kubectl -n kube-system logs deploy/snapshot-controller --since=" + since);
        }
      }
      default -> {
        Optional<Pod> holder = driver.leaseHolder(actor);
        if (holder.isPresent()) {
          String ns = holder.get().getMetadata().getNamespace();
          String pod = holder.get().getMetadata().getName();
          commands.add("kubectl -n " + ns + " logs " + pod + " -c " + actor.component + " --since=" + since);
          commands.add("kubectl -n " + ns + " logs " + pod + " -c " + d.pluginContainer() + " --since=" + since
              + grep);
        } else {
          commands.add("kubectl logs -A -l app=" + d.controllerApp() + " -c " + actor.component + " --prefix --since="
              + since);
        }
      }
    }
    if (pvc != null) {
      commands.add("kubectl -n " + pvc.getMetadata().getNamespace() + " describe pvc " + pvc.getMetadata().getName());
    }
    if (f.stage() == Stage.ATTACHING || f.stage() == Stage.DETACHING) {
      commands.add("kubectl get volumeattachments -o wide" + (pv.isEmpty() ? "" : " | grep " + pv));
    }
    return commands;
  }

  LogQuery logQuery(DriverState driver, Finding f, VolumeView v) {
    if (f.stage() == null || f.stage().csiMethod == null) {
      return null;
    }
    // CreateVolume's line names the volume it asks for (name=pvc-UID); every other call names the volume id.
    String id = f.stage() == Stage.PROVISIONING || f.stage() == Stage.RESTORING ? createName(v) : handle(v.pv());
    return f.actor() == Actor.NODE_PLUGIN ? nodeQuery(driver, f.node(), f.stage().csiMethod, id)
        : f.actor().isSidecar() ? controllerQuery(driver, f.actor(), f.stage().csiMethod, id) : null;
  }

  /** CreateVolume's name: the provisioner's --volume-name-prefix (default pvc), a dash and the claim's UID. */
  private static String createName(VolumeView v) {
    String prefix = "pvc";
    Optional<Pod> holder = v.driver().leaseHolder(Actor.PROVISIONER);
    List<Pod> pods = holder.map(List::of).orElse(v.driver().controllerPods());
    for (Pod p : pods) {
      for (Container c : p.getSpec().getContainers()) {
        if (c.getName().equals(Actor.PROVISIONER.component) && c.getArgs() != null) {
          for (String arg : c.getArgs()) {
            if (arg.startsWith("--volume-name-prefix=")) {
              prefix = arg.substring(arg.indexOf('=') + 1);
            }
          }
        }
      }
    }
    return v.pvc() == null ? "" : prefix + "-" + v.pvc().getMetadata().getUid();
  }

  static LogQuery controllerQuery(DriverState driver, Actor actor, String method, String id) {
    if (!actor.isSidecar() || method == null) {
      return null;
    }
    Optional<Pod> holder = driver.leaseHolder(actor);
    List<String> others = driver.controllerPods().stream()
        .filter(p -> holder.isEmpty() || !p.getMetadata().getName().equals(holder.get().getMetadata().getName()))
        .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName()).toList();
    return new LogQuery(holder.map(p -> p.getMetadata().getNamespace()).orElse(""),
        holder.map(p -> p.getMetadata().getName()).orElse(""), driver.driver().pluginContainer(), method, id, others);
  }

  private static LogQuery nodeQuery(DriverState driver, String node, String method, String id) {
    if (method == null) {
      return null;
    }
    Pod plugin = driver.nodePlugins().get(node);
    return new LogQuery(plugin == null ? "" : plugin.getMetadata().getNamespace(),
        plugin == null ? "" : plugin.getMetadata().getName(), driver.driver().pluginContainer(), method, id,
        List.of());
  }
}
