package io.awscsi.diagnose;

import static io.awscsi.diagnose.Views.active;
import static io.awscsi.diagnose.Views.empty;
import static io.awscsi.diagnose.Views.handle;
import static io.awscsi.diagnose.Views.orNone;
import static io.awscsi.diagnose.Views.otherReason;
import static io.awscsi.diagnose.Views.phase;
import static io.awscsi.diagnose.Views.pvName;
import static io.awscsi.diagnose.Views.storageClassName;

import io.awscsi.diagnose.Diagnosis.LogQuery;
import io.awscsi.diagnose.Diagnosis.Verdict;
import io.awscsi.diagnose.Knowledge.Actor;
import io.awscsi.diagnose.Knowledge.Stage;
import io.awscsi.diagnose.Views.SnapshotView;
import io.awscsi.diagnose.Views.VolumeView;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Names the stage of a volume that is stuck or failed, from the objects read ({@link Views}): which component does
 * that stage, the exact container holding the answer, what it reported and what that means ({@link Knowledge}).
 * Pure: the same views give the same diagnosis. A stage is "failed" when its component reported an error and "stuck"
 * when it has been under way longer than {@code stuckAfter} with no error; younger work is "in progress".
 */
final class StageInference {

  private static final String SELECTED_NODE = "volume.kubernetes.io/selected-node";
  private static final String PROVISIONER_FINALIZER = "external-provisioner.volume.kubernetes.io/finalizer";

  private final Duration stuckAfter;
  private final Clock clock;
  private final Wording wording;

  /** @param since the --since of the kubectl commands the report prints, e.g. {@code 1h} */
  StageInference(Duration stuckAfter, String since, Clock clock) {
    this.stuckAfter = stuckAfter;
    this.clock = clock;
    this.wording = new Wording(since);
  }

  // ---------------------------------------------------------------- volumes

  Diagnosis diagnose(VolumeView v) {
    List<String> seen = new ArrayList<>();
    Evidence.describe(v, seen);
    List<Finding> findings = new ArrayList<>();
    if (v.pvc() != null) {
      claimDeletion(v).ifPresent(findings::add);
      Optional<Finding> provisioning = provisioning(v);
      if (provisioning.isPresent()) {
        findings.add(provisioning.get());
      } else {
        bound(v).ifPresent(findings::add);
      }
    } else {
      pvOnly(v).ifPresent(findings::add);
    }
    if (v.pv() != null) {
      if (v.pvc() != null) {
        expansion(v).ifPresent(findings::add);
        modification(v).ifPresent(findings::add);
      }
      for (Pod pod : active(v.consumers())) {
        consumer(v, pod).ifPresent(findings::add);
      }
      detaching(v).ifPresent(findings::add);
    }
    if (findings.isEmpty()) {
      findings.add(Finding.healthy(healthySummary(v)));
    }
    findings.sort(Comparator.comparingInt(Finding::rank)
        .thenComparing(f -> f.stage() == null ? Integer.MAX_VALUE : f.stage().ordinal()));
    Finding primary = findings.getFirst();
    List<String> also = findings.stream().skip(1).filter(f -> f.verdict() != Verdict.HEALTHY)
        .map(f -> f.verdict().words + ": " + f.summary()).toList();
    return wording.word(subject(v), primary, v.driver(), handle(v.pv()), pvName(v), storageClassName(v), v.pvc(),
        seen, v.gaps(), also, wording.logQuery(v.driver(), primary, v));
  }

  private static String subject(VolumeView v) {
    String s = v.pvc() != null ? "pvc " + v.pvc().getMetadata().getNamespace() + "/" + v.pvc().getMetadata().getName()
        : "pv " + v.pv().getMetadata().getName();
    return v.focus() == null ? s : s + " (used by pod " + v.focus().getMetadata().getName() + ")";
  }

  private Optional<Finding> claimDeletion(VolumeView v) {
    String deleted = v.pvc().getMetadata().getDeletionTimestamp();
    if (deleted == null) {
      return Optional.empty();
    }
    List<String> users = active(v.consumers()).stream().map(p -> p.getMetadata().getName()).toList();
    String summary = users.isEmpty() ? "the claim is being deleted"
        : "the claim is being deleted but pods " + users + " still use it (kubernetes.io/pvc-protection keeps it"
            + " until they stop)";
    return Optional.of(new Finding(overdue(Views.instant(deleted)) && !users.isEmpty() ? Verdict.STUCK
        : Verdict.PROGRESSING, Stage.DELETING, Actor.CONTROLLER_MANAGER, "", "", summary));
  }

  /** The claim is not bound yet: provisioning, restoring or waiting for its pod to be scheduled. */
  private Optional<Finding> provisioning(VolumeView v) {
    PersistentVolumeClaim pvc = v.pvc();
    String volumeName = pvc.getSpec().getVolumeName();
    if (volumeName != null && !volumeName.isEmpty()) {
      return Optional.empty();
    }
    Stage stage = restoring(pvc) ? Stage.RESTORING : Stage.PROVISIONING;
    String className = storageClassName(v);
    if (!className.isEmpty() && v.storageClass() == null && v.gaps().stream().noneMatch(g -> g.contains(
        "storageclass"))) {
      return Optional.of(new Finding(Verdict.FAILED, stage, Actor.CONTROLLER_MANAGER, "",
          latestMessage(v, pvc, "ProvisioningFailed").orElse("storageclass.storage.k8s.io \"" + className
              + "\" not found"),
          "the claim's StorageClass " + className + " does not exist"));
    }
    if (stage == Stage.RESTORING) {
      Optional<Finding> source = restoreSource(v);
      if (source.isPresent()) {
        return source;
      }
    }
    boolean waitForConsumer = v.storageClass() != null
        && "WaitForFirstConsumer".equals(v.storageClass().getVolumeBindingMode());
    String selected = annotation(pvc, SELECTED_NODE);
    if (waitForConsumer && selected == null) {
      List<Pod> pods = active(v.consumers());
      if (pods.isEmpty()) {
        return Optional.of(Finding.healthy("Pending until a pod uses it (StorageClass " + className
            + ": WaitForFirstConsumer)"));
      }
      Pod pod = pods.getFirst();
      Optional<Event> unschedulable = v.events().latestWarning(pod, "FailedScheduling");
      if (unschedulable.isPresent()) {
        return Optional.of(new Finding(Verdict.FAILED, Stage.SCHEDULING, Actor.SCHEDULER, "",
            unschedulable.get().getMessage(), "pod " + pod.getMetadata().getName() + " cannot be scheduled"
                + allowedTopology(v.storageClass())));
      }
      return Optional.of(byAge(Views.created(pod), Stage.SCHEDULING, Actor.SCHEDULER, "",
          "pod " + pod.getMetadata().getName() + " is not scheduled yet, so the claim is not provisioned"));
    }
    Optional<Event> failed = v.events().latestWarning(pvc, "ProvisioningFailed");
    if (failed.isPresent()) {
      String message = failed.get().getMessage();
      return Optional.of(new Finding(Verdict.FAILED, stage, Actor.PROVISIONER, "", message,
          Knowledge.carriesDriverReply(message) ? "CreateVolume failed"
              : "csi-provisioner stopped before CreateVolume"));
    }
    String missing = v.driver().sidecarMissing(Actor.PROVISIONER, v.now());
    if (!missing.isEmpty() && overdue(Views.created(pvc))) {
      return Optional.of(new Finding(Verdict.STUCK, stage, Actor.PROVISIONER, "", "", missing));
    }
    return Optional.of(byAge(Views.created(pvc), stage, Actor.PROVISIONER, "", "the claim is Pending with no"
        + " error from csi-provisioner"));
  }

  /**
   * The class's allowed topology, for a claim the scheduler finds no node for: the scheduler says only that no node
   * "found available persistent volumes to bind", and a class limited to zones without schedulable nodes is the
   * common cause (a zone typed wrong, a node group gone).
   */
  private static String allowedTopology(io.fabric8.kubernetes.api.model.storage.StorageClass sc) {
    if (sc == null || sc.getAllowedTopologies() == null || sc.getAllowedTopologies().isEmpty()) {
      return "";
    }
    List<String> terms = sc.getAllowedTopologies().stream()
        .map(t -> t.getMatchLabelExpressions() == null ? "" : String.join(" and ", t.getMatchLabelExpressions()
            .stream().map(e -> e.getKey() + " in " + e.getValues()).toList()))
        .filter(t -> !t.isEmpty()).toList();
    return terms.isEmpty() ? "" : "; its StorageClass " + sc.getMetadata().getName() + " allows only the topology "
        + String.join(" or ", terms) + ": a schedulable node must be there for the claim to be provisioned";
  }

  private Optional<Finding> restoreSource(VolumeView v) {
    GenericKubernetesResource snapshot = v.restoreSource();
    Views.DataSource ref = Views.dataSource(v.pvc()).orElseThrow();
    if (snapshot == null) {
      if (v.gaps().stream().anyMatch(g -> g.contains("volumesnapshot"))) {
        return Optional.empty();
      }
      return Optional.of(new Finding(Verdict.FAILED, Stage.RESTORING, Actor.PROVISIONER, "",
          "VolumeSnapshot " + ref.name() + " not found", "the claim restores from VolumeSnapshot " + ref.name()
              + ", which does not exist"));
    }
    if (Fields.isTrue(snapshot, "status", "readyToUse")) {
      return Optional.empty();
    }
    String error = Fields.string(snapshot, "status", "error", "message");
    if (!error.isEmpty()) {
      return Optional.of(new Finding(Verdict.FAILED, Stage.RESTORING, Actor.SNAPSHOTTER, "", error,
          "the claim restores from VolumeSnapshot " + ref.name() + ", which failed"));
    }
    return Optional.of(byAge(Views.created(v.pvc()), Stage.RESTORING, Actor.SNAPSHOTTER, "",
        "the claim waits for VolumeSnapshot " + ref.name() + " to be ready to use"));
  }

  /** A claim bound to a PV: the PV must exist. */
  private Optional<Finding> bound(VolumeView v) {
    if ("Lost".equals(phase(v.pvc()))) {
      return Optional.of(new Finding(Verdict.FAILED, Stage.DELETING, Actor.CONTROLLER_MANAGER, "",
          "PersistentVolumeClaim is Lost", "the claim is Lost: its PV " + pvName(v) + " no longer exists"));
    }
    if (v.pv() == null && v.gaps().stream().noneMatch(g -> g.contains("persistentvolume"))) {
      return Optional.of(new Finding(Verdict.FAILED, Stage.PROVISIONING, Actor.CONTROLLER_MANAGER, "",
          "PersistentVolume " + pvName(v) + " not found", "the claim names PV " + pvName(v) + ", which does not"
              + " exist"));
    }
    return Optional.empty();
  }

  /** A PV diagnosed on its own (no claim): released, deleting, or available. */
  private Optional<Finding> pvOnly(VolumeView v) {
    PersistentVolume pv = v.pv();
    String phase = pv.getStatus() == null ? "" : Objects.requireNonNullElse(pv.getStatus().getPhase(), "");
    Optional<Event> failed = v.events().latestWarning(pv, "VolumeFailedDelete");
    if (failed.isPresent() && !phase.equals("Bound") && !phase.equals("Available")) {
      return Optional.of(new Finding(Verdict.FAILED, Stage.DELETING, Actor.PROVISIONER, "",
          failed.get().getMessage(), "DeleteVolume failed"));
    }
    String deleted = pv.getMetadata().getDeletionTimestamp();
    boolean released = phase.equals("Released") || phase.equals("Failed");
    boolean reclaims = "Delete".equals(pv.getSpec().getPersistentVolumeReclaimPolicy());
    if (deleted != null || released && reclaims) {
      if (!v.attachments().isEmpty()) {
        return Optional.empty(); // detaching first: reported by detaching()
      }
      boolean finalized = pv.getMetadata().getFinalizers() != null
          && pv.getMetadata().getFinalizers().contains(PROVISIONER_FINALIZER);
      Instant since = deleted != null ? Views.instant(deleted) : null;
      String summary = "the PV is " + (deleted != null ? "being deleted" : phase + " with reclaim policy Delete")
          + (finalized ? " (csi-provisioner's finalizer is still on it)" : "");
      if (phase.equals("Failed") && pv.getStatus().getMessage() != null) {
        return Optional.of(new Finding(Verdict.FAILED, Stage.DELETING, Actor.PROVISIONER, "",
            pv.getStatus().getMessage(), summary));
      }
      String missing = v.driver().sidecarMissing(Actor.PROVISIONER, v.now());
      if (!missing.isEmpty()) {
        return Optional.of(new Finding(Verdict.STUCK, Stage.DELETING, Actor.PROVISIONER, "", "", missing));
      }
      return Optional.of(since == null ? new Finding(Verdict.PROGRESSING, Stage.DELETING, Actor.PROVISIONER, "", "",
          summary) : byAge(since, Stage.DELETING, Actor.PROVISIONER, "", summary));
    }
    if (released) {
      return Optional.of(Finding.healthy("the PV is " + phase + " and kept (reclaim policy "
          + pv.getSpec().getPersistentVolumeReclaimPolicy() + ")"));
    }
    return Optional.empty();
  }

  private Optional<Finding> expansion(VolumeView v) {
    PersistentVolumeClaim pvc = v.pvc();
    if (pvc.getStatus() == null) {
      return Optional.empty();
    }
    Quantity requested = pvc.getSpec().getResources() == null || pvc.getSpec().getResources().getRequests() == null
        ? null : pvc.getSpec().getResources().getRequests().get("storage");
    Quantity capacity = pvc.getStatus().getCapacity() == null ? null : pvc.getStatus().getCapacity().get("storage");
    String allocated = pvc.getStatus().getAllocatedResourceStatuses() == null ? null
        : pvc.getStatus().getAllocatedResourceStatuses().get("storage");
    Optional<PersistentVolumeClaimCondition> controllerError = condition(pvc, "ControllerResizeError");
    Optional<PersistentVolumeClaimCondition> nodeError = condition(pvc, "NodeResizeError");
    Optional<PersistentVolumeClaimCondition> fsPending = condition(pvc, "FileSystemResizePending");
    Optional<PersistentVolumeClaimCondition> resizing = condition(pvc, "Resizing");
    boolean grows = requested != null && capacity != null
        && Quantity.getAmountInBytes(requested).compareTo(Quantity.getAmountInBytes(capacity)) > 0;
    if (!grows && allocated == null && controllerError.isEmpty() && nodeError.isEmpty() && fsPending.isEmpty()
        && resizing.isEmpty()) {
      return Optional.empty();
    }
    String sizes = (capacity == null ? "?" : capacity.toString()) + " -> " + (requested == null ? "?"
        : requested.toString());
    boolean nodePart = allocated != null && allocated.startsWith("Node") || fsPending.isPresent()
        || nodeError.isPresent();
    Optional<Event> resizerFailed = v.events().of(pvc).stream()
        .filter(e -> "Warning".equals(e.getType()) && "VolumeResizeFailed".equals(e.getReason()) && !fromKubelet(e))
        .max(Comparator.comparing(Views::time));
    if (!nodePart && ("ControllerResizeInfeasible".equals(allocated) || controllerError.isPresent()
        || resizerFailed.isPresent())) {
      String error = controllerError.map(PersistentVolumeClaimCondition::getMessage)
          .or(() -> resizerFailed.map(Event::getMessage)).orElse("allocatedResourceStatuses: " + allocated);
      return Optional.of(new Finding(Verdict.FAILED, Stage.EXPANDING_CONTROLLER, Actor.RESIZER, "", error,
          "ControllerExpandVolume failed (" + sizes + ")"));
    }
    String node = consumerNode(v);
    Optional<Event> kubeletFailed = nodeExpansionEvent(v);
    if ("NodeResizeInfeasible".equals(allocated) || "NodeResizeFailed".equals(allocated) || nodeError.isPresent()
        || kubeletFailed.isPresent() && nodePart) {
      String error = nodeError.map(PersistentVolumeClaimCondition::getMessage)
          .or(() -> kubeletFailed.map(Event::getMessage)).orElse("allocatedResourceStatuses: " + allocated);
      return Optional.of(new Finding(Verdict.FAILED, Stage.EXPANDING_NODE, Actor.NODE_PLUGIN, node, error,
          "NodeExpandVolume failed (" + sizes + ")"));
    }
    if (nodePart) {
      if (active(v.consumers()).isEmpty()) {
        return Optional.of(new Finding(Verdict.PROGRESSING, Stage.EXPANDING_NODE, Actor.NODE_PLUGIN, "", "",
            "the volume grew in EC2; its file system grows when a pod mounts it (" + sizes + ")"));
      }
      Instant since = fsPending.map(c -> Views.instant(c.getLastTransitionTime())).orElse(null);
      return Optional.of(since == null ? new Finding(Verdict.PROGRESSING, Stage.EXPANDING_NODE, Actor.NODE_PLUGIN,
          node, "", "the file system is being grown (" + sizes + ")")
          : byAge(since, Stage.EXPANDING_NODE, Actor.NODE_PLUGIN, node, "the file system is being grown ("
              + sizes + ")"));
    }
    String missing = v.driver().sidecarMissing(Actor.RESIZER, v.now());
    if (!missing.isEmpty()) {
      return Optional.of(new Finding(Verdict.STUCK, Stage.EXPANDING_CONTROLLER, Actor.RESIZER, "", "", missing));
    }
    Instant since = resizing.map(c -> Views.instant(c.getLastTransitionTime())).orElse(null);
    String summary = "ControllerExpandVolume is under way (" + sizes + ")";
    return Optional.of(since == null ? new Finding(Verdict.PROGRESSING, Stage.EXPANDING_CONTROLLER, Actor.RESIZER,
        "", "", summary) : byAge(since, Stage.EXPANDING_CONTROLLER, Actor.RESIZER, "", summary));
  }

  private Optional<Event> nodeExpansionEvent(VolumeView v) {
    List<Event> candidates = new ArrayList<>();
    v.events().of(v.pvc()).stream().filter(e -> "Warning".equals(e.getType()) && fromKubelet(e)
        && List.of("VolumeResizeFailed", "FileSystemResizeFailed").contains(e.getReason())).forEach(candidates::add);
    for (Pod pod : active(v.consumers())) {
      v.events().latestWarning(pod, "FileSystemResizeFailed", "VolumeResizeFailed").ifPresent(candidates::add);
    }
    return candidates.stream().max(Comparator.comparing(Views::time));
  }

  private Optional<Finding> modification(VolumeView v) {
    PersistentVolumeClaim pvc = v.pvc();
    String target = pvc.getSpec().getVolumeAttributesClassName();
    String current = pvc.getStatus() == null ? null : pvc.getStatus().getCurrentVolumeAttributesClassName();
    var status = pvc.getStatus() == null ? null : pvc.getStatus().getModifyVolumeStatus();
    if (status == null && Objects.equals(empty(target), empty(current))) {
      return Optional.empty();
    }
    String to = status != null && status.getTargetVolumeAttributesClassName() != null
        ? status.getTargetVolumeAttributesClassName() : empty(target);
    String state = status == null ? "" : Objects.requireNonNullElse(status.getStatus(), "");
    Optional<PersistentVolumeClaimCondition> error = condition(pvc, "ModifyVolumeError");
    Optional<Event> failed = v.events().latestWarning(pvc, "VolumeModifyFailed");
    String summary = "modifying to VolumeAttributesClass " + to + " (from " + (empty(current).isEmpty() ? "none"
        : current) + ")" + (state.isEmpty() ? "" : ", status " + state);
    if (state.equals("Pending")) {
      // csi-resizer marks Pending when the class cannot be used (it does not exist): it sends no call at all.
      String message = failed.map(Event::getMessage).orElse("modifyVolumeStatus Pending");
      return Optional.of(new Finding(Verdict.FAILED, Stage.MODIFYING, Actor.RESIZER, "", message,
          "no ControllerModifyVolume was sent: " + summary));
    }
    if (state.equals("Infeasible") || error.isPresent() || failed.isPresent()) {
      String message = error.map(PersistentVolumeClaimCondition::getMessage)
          .or(() -> failed.map(Event::getMessage)).orElse("modifyVolumeStatus " + state);
      boolean called = Knowledge.carriesDriverReply(message) || state.equals("Infeasible") || error.isPresent();
      return Optional.of(new Finding(Verdict.FAILED, Stage.MODIFYING, Actor.RESIZER, "", message,
          (called ? "ControllerModifyVolume failed: " : "the modification failed before any call: ") + summary));
    }
    Instant since = condition(pvc, "ModifyingVolume").map(c -> Views.instant(c.getLastTransitionTime()))
        .orElse(null);
    return Optional.of(since == null ? new Finding(Verdict.PROGRESSING, Stage.MODIFYING, Actor.RESIZER, "", "",
        summary) : byAge(since, Stage.MODIFYING, Actor.RESIZER, "", summary));
  }

  /** A pod that uses the volume: scheduled, attached on its node, staged and published there. */
  private Optional<Finding> consumer(VolumeView v, Pod pod) {
    String name = pod.getMetadata().getName();
    if (Readiness.isPodReady(pod)) {
      return Optional.empty();
    }
    String node = Objects.requireNonNullElse(pod.getSpec().getNodeName(), "");
    if (node.isEmpty()) {
      if (v.pvc() != null && (v.pvc().getSpec().getVolumeName() == null
          || v.pvc().getSpec().getVolumeName().isEmpty())) {
        return Optional.empty(); // reported with provisioning
      }
      Optional<Event> unschedulable = v.events().latestWarning(pod, "FailedScheduling");
      if (unschedulable.isPresent()) {
        return Optional.of(new Finding(Verdict.FAILED, Stage.SCHEDULING, Actor.SCHEDULER, "",
            unschedulable.get().getMessage(), "pod " + name + " cannot be scheduled"));
      }
      return Optional.of(byAge(Views.created(pod), Stage.SCHEDULING, Actor.SCHEDULER, "",
          "pod " + name + " is not scheduled yet"));
    }
    boolean registered = v.driver().registered(node);
    if (v.driver().needsAttach()) {
      Optional<VolumeAttachment> va = v.attachments().stream().filter(a -> node.equals(a.getSpec().getNodeName()))
          .findFirst();
      Optional<Event> attachFailed = v.events().latestWarning(pod, "FailedAttachVolume");
      if (va.isEmpty()) {
        if (attachFailed.isPresent()) {
          return Optional.of(new Finding(Verdict.FAILED, Stage.ATTACHING, Actor.CONTROLLER_MANAGER, node,
              attachFailed.get().getMessage(), "no attach of the volume to " + node + " for pod " + name));
        }
        return Optional.of(byAge(Views.created(pod), Stage.ATTACHING, Actor.CONTROLLER_MANAGER, node,
            "no VolumeAttachment of " + pvName(v) + " to " + node + " yet (pod " + name + ")"));
      }
      VolumeAttachment attachment = va.get();
      boolean attached = attachment.getStatus() != null && Boolean.TRUE.equals(attachment.getStatus().getAttached());
      if (!attached) {
        String vaName = attachment.getMetadata().getName();
        if (attachment.getStatus() != null && attachment.getStatus().getAttachError() != null
            && attachment.getStatus().getAttachError().getMessage() != null) {
          return Optional.of(new Finding(Verdict.FAILED, Stage.ATTACHING, Actor.ATTACHER, node,
              attachment.getStatus().getAttachError().getMessage(), "ControllerPublishVolume to " + node
                  + " failed (VolumeAttachment " + vaName + ")"));
        }
        if (attachFailed.isPresent() && !Views.time(attachFailed.get()).isBefore(Views.created(attachment))) {
          return Optional.of(new Finding(Verdict.FAILED, Stage.ATTACHING, Actor.ATTACHER, node,
              attachFailed.get().getMessage(), "the attach to " + node + " failed (VolumeAttachment " + vaName
                  + ")"));
        }
        if (!registered) {
          return Optional.of(new Finding(overdue(Views.created(attachment)) ? Verdict.STUCK : Verdict.PROGRESSING,
              Stage.ATTACHING, Actor.NODE_PLUGIN, node, "", v.driver().notRegistered(node)));
        }
        String missing = v.driver().sidecarMissing(Actor.ATTACHER, v.now());
        return Optional.of(byAge(Views.created(attachment), Stage.ATTACHING, Actor.ATTACHER, node,
            missing.isEmpty() ? "VolumeAttachment " + vaName + " is not attached yet, with no error" : missing));
      }
    }
    Optional<Event> mountFailed = v.events().latestWarning(pod, "FailedMount", "FailedMapVolume");
    if (mountFailed.isPresent()) {
      String message = mountFailed.get().getMessage();
      Stage stage = mountStage(message);
      if (stage == null) {
        // "Unable to attach or mount volumes ... timed out": the kubelet gave up waiting; an older event may say
        // which call failed.
        Optional<Event> specific = v.events().of(pod).stream()
            .filter(e -> "Warning".equals(e.getType()) && mountStage(e.getMessage()) != null)
            .max(Comparator.comparing(Views::time));
        if (specific.isPresent()) {
          message = specific.get().getMessage();
          stage = mountStage(message);
        } else {
          return Optional.of(new Finding(overdue(Views.created(pod)) ? Verdict.STUCK : Verdict.PROGRESSING,
              Stage.STAGING, Actor.NODE_PLUGIN, node, message, registered ? "the kubelet on " + node
                  + " timed out mounting the volume; the node plugin reported no error yet"
                  : v.driver().notRegistered(node)));
        }
      }
      return Optional.of(new Finding(Verdict.FAILED, stage, Actor.NODE_PLUGIN, node, message,
          stage.csiMethod + " on " + node + " failed for pod " + name));
    }
    if (!registered) {
      return Optional.of(new Finding(overdue(Views.created(pod)) ? Verdict.STUCK : Verdict.PROGRESSING,
          Stage.STAGING, Actor.NODE_PLUGIN, node, "", v.driver().notRegistered(node)));
    }
    Optional<String> other = otherReason(pod);
    if (other.isPresent()) {
      return Optional.empty(); // not the volume: the report's evidence shows it
    }
    return Optional.of(byAge(Views.created(pod), Stage.STAGING, Actor.NODE_PLUGIN, node,
        "pod " + name + " on " + node + " is not ready and the kubelet reported nothing about the volume"));
  }

  /** Which node call a kubelet FailedMount / FailedMapVolume message is about, or null if it does not say. */
  static Stage mountStage(String message) {
    if (message == null) {
      return null;
    }
    if (message.contains("while expanding volume") || message.contains("NodeExpandVolume")) {
      return Stage.EXPANDING_NODE;
    }
    if (message.contains("MountVolume.MountDevice") || message.contains("MapVolume.SetUpDevice")
        || message.contains("MountVolume.WaitForAttach") || message.contains("MapVolume.WaitForAttach")) {
      return Stage.STAGING;
    }
    if (message.contains("MountVolume.SetUp") || message.contains("MapVolume.MapPodDevice")
        || message.contains("MapVolume.MapBlockVolume")) {
      return Stage.PUBLISHING;
    }
    if (message.contains("not found in the list of registered CSI drivers")) {
      return Stage.STAGING;
    }
    return null;
  }

  /** VolumeAttachments whose node has no pod of the claim any more: the detach. */
  private Optional<Finding> detaching(VolumeView v) {
    List<String> nodesInUse = active(v.consumers()).stream().map(p -> p.getSpec().getNodeName())
        .filter(Objects::nonNull).toList();
    for (VolumeAttachment va : v.attachments()) {
      String node = va.getSpec().getNodeName();
      if (nodesInUse.contains(node)) {
        continue;
      }
      String name = va.getMetadata().getName();
      if (va.getStatus() != null && va.getStatus().getDetachError() != null
          && va.getStatus().getDetachError().getMessage() != null) {
        return Optional.of(new Finding(Verdict.FAILED, Stage.DETACHING, Actor.ATTACHER, node,
            va.getStatus().getDetachError().getMessage(), "ControllerUnpublishVolume from " + node + " failed"
                + " (VolumeAttachment " + name + ")"));
      }
      boolean inUse = inUseOn(v, node);
      String deleted = va.getMetadata().getDeletionTimestamp();
      if (inUse) {
        String summary = "the kubelet on " + node + " still reports the volume in use (NodeUnpublishVolume or"
            + " NodeUnstageVolume not done), so it is not detached";
        return Optional.of(deleted == null ? new Finding(Verdict.PROGRESSING, Stage.DETACHING, Actor.NODE_PLUGIN,
            node, "", summary) : byAge(Views.instant(deleted), Stage.DETACHING, Actor.NODE_PLUGIN, node, summary));
      }
      if (deleted != null) {
        return Optional.of(byAge(Views.instant(deleted), Stage.DETACHING, Actor.ATTACHER, node,
            "VolumeAttachment " + name + " is being deleted: the volume is detaching from " + node));
      }
      return Optional.of(new Finding(Verdict.PROGRESSING, Stage.DETACHING, Actor.CONTROLLER_MANAGER, node, "",
          "no pod of the claim runs on " + node + " any more; the volume is still attached there (VolumeAttachment "
              + name + ")"));
    }
    return Optional.empty();
  }

  /**
   * A claim naming a StorageClass that does not exist. The PV controller cannot tell which provisioner to ask, so no
   * driver call was made and no driver log holds anything: the claim's event is the answer.
   */
  Diagnosis diagnose(Views.ClassMissing c) {
    PersistentVolumeClaim pvc = c.pvc();
    String subject = "pvc " + pvc.getMetadata().getNamespace() + "/" + pvc.getMetadata().getName();
    Stage stage = restoring(pvc) ? Stage.RESTORING : Stage.PROVISIONING;
    String error = c.events().latestWarning(pvc, "ProvisioningFailed").map(Event::getMessage)
        .orElse("storageclass.storage.k8s.io \"" + c.className() + "\" not found");
    Knowledge.KnownError known = Knowledge.explain(stage, error)
        .filter(k -> k.id().equals(Knowledge.STORAGE_CLASS_MISSING))
        .orElseGet(() -> Knowledge.byId(Knowledge.STORAGE_CLASS_MISSING));
    String ns = pvc.getMetadata().getNamespace();
    List<String> seen = List.of("PVC " + ns + "/" + pvc.getMetadata().getName() + ": phase " + phase(pvc)
        + ", StorageClass " + c.className() + " (not found)");
    List<String> commands = List.of("kubectl -n " + ns + " describe pvc " + pvc.getMetadata().getName(),
        "kubectl get storageclass");
    return new Diagnosis(subject, Verdict.FAILED, stage.title + " " + Verdict.FAILED.words + ": the claim's"
        + " StorageClass " + c.className() + " does not exist", stage, Actor.CONTROLLER_MANAGER.component,
        Wording.where(Actor.CONTROLLER_MANAGER, null, ""), error, known.id(),
        known.meaning().replace("{storageClass}", c.className()), known.action().replace("{storageClass}",
            c.className()), commands, seen, c.gaps(), List.of(), "", "", null,
        new Diagnosis.DriverLog("", "", "", null, "no driver was called: without its StorageClass the claim names"
            + " no provisioner"));
  }

  // ---------------------------------------------------------------- snapshots

  Diagnosis diagnose(SnapshotView v) {
    GenericKubernetesResource vs = v.snapshot();
    GenericKubernetesResource content = v.content();
    List<String> seen = new ArrayList<>();
    String name = vs.getMetadata().getName();
    String source = Fields.string(vs, "spec", "source", "persistentVolumeClaimName");
    seen.add("VolumeSnapshot " + vs.getMetadata().getNamespace() + "/" + name + ": source "
        + (source.isEmpty() ? "content " + Fields.string(vs, "spec", "source", "volumeSnapshotContentName")
            : "PVC " + source) + ", class " + orNone(Fields.string(vs, "spec", "volumeSnapshotClassName"))
        + ", readyToUse " + Fields.isTrue(vs, "status", "readyToUse"));
    if (content != null) {
      seen.add("VolumeSnapshotContent " + content.getMetadata().getName() + ": snapshot "
          + orNone(Fields.string(content, "status", "snapshotHandle")) + ", source volume "
          + orNone(Fields.string(content, "spec", "source", "volumeHandle")));
    }
    Evidence.sidecarEvidence(v.driver(), Actor.SNAPSHOTTER, v.now(), seen);
    Finding finding = snapshotFinding(v, vs, content, source);
    String volumeId = content != null && !Fields.string(content, "spec", "source", "volumeHandle").isEmpty()
        ? Fields.string(content, "spec", "source", "volumeHandle") : handle(v.sourcePv());
    String subject = "volumesnapshot " + vs.getMetadata().getNamespace() + "/" + name;
    LogQuery query = finding.stage() == null ? null : Wording.controllerQuery(v.driver(), finding.actor(),
        finding.stage().csiMethod, volumeId);
    return wording.word(subject, finding, v.driver(), volumeId, v.sourcePv() == null ? ""
        : v.sourcePv().getMetadata().getName(), "", v.source(), seen, v.gaps(), List.of(), query);
  }

  private Finding snapshotFinding(SnapshotView v, GenericKubernetesResource vs, GenericKubernetesResource content,
      String source) {
    if (Fields.isTrue(vs, "status", "readyToUse")) {
      return Finding.healthy("ready to use (snapshot " + Fields.string(content, "status", "snapshotHandle") + ")");
    }
    String contentError = Fields.string(content, "status", "error", "message");
    if (!contentError.isEmpty()) {
      return new Finding(Verdict.FAILED, Stage.SNAPSHOTTING, Actor.SNAPSHOTTER, "", contentError,
          "CreateSnapshot failed");
    }
    String snapshotError = Fields.string(vs, "status", "error", "message");
    if (v.classMissing()) {
      // snapshot-controller stops before it makes a content: no CreateSnapshot was ever sent.
      String className = Fields.string(vs, "spec", "volumeSnapshotClassName");
      String reported = !snapshotError.isEmpty() ? snapshotError : warnings(v, vs).map(Event::getMessage)
          .orElse("volumesnapshotclass.snapshot.storage.k8s.io \"" + className + "\" not found");
      return new Finding(Verdict.FAILED, Stage.SNAPSHOTTING, Actor.SNAPSHOT_CONTROLLER, "", reported,
          "the snapshot's VolumeSnapshotClass " + className + " does not exist");
    }
    // Without a VolumeSnapshotContent csi-snapshotter has nothing to act on: whatever failed is snapshot-controller's,
    // before any CreateSnapshot.
    String noContent = "snapshot-controller made no VolumeSnapshotContent, so no CreateSnapshot was sent";
    if (!snapshotError.isEmpty()) {
      return new Finding(Verdict.FAILED, Stage.SNAPSHOTTING, content == null ? Actor.SNAPSHOT_CONTROLLER
          : Actor.SNAPSHOTTER, "", snapshotError, content == null ? noContent : "the snapshot failed");
    }
    Optional<Event> warning = warnings(v, vs).or(() -> warnings(v, content));
    if (warning.isPresent()) {
      return new Finding(Verdict.FAILED, Stage.SNAPSHOTTING, content != null ? Actor.SNAPSHOTTER
          : Actor.SNAPSHOT_CONTROLLER, "", warning.get().getMessage(), content == null ? noContent
          : "the snapshot failed");
    }
    if (!source.isEmpty() && v.source() == null && v.gaps().stream().noneMatch(g -> g.contains(
        "persistentvolumeclaim"))) {
      return new Finding(Verdict.FAILED, Stage.SNAPSHOTTING, Actor.SNAPSHOT_CONTROLLER, "",
          "PersistentVolumeClaim " + source + " not found", "the snapshot's source claim does not exist");
    }
    if (content == null) {
      return byAge(Views.created(vs), Stage.SNAPSHOTTING, Actor.SNAPSHOT_CONTROLLER, "",
          "no VolumeSnapshotContent yet: snapshot-controller has not made one (is it running? does the"
              + " VolumeSnapshotClass exist?)");
    }
    if (Fields.string(content, "status", "snapshotHandle").isEmpty()) {
      String missing = v.driver().sidecarMissing(Actor.SNAPSHOTTER, v.now());
      return byAge(Views.created(content), Stage.SNAPSHOTTING, Actor.SNAPSHOTTER, "", missing.isEmpty()
          ? "CreateSnapshot has not returned a snapshot yet" : missing);
    }
    return new Finding(Verdict.PROGRESSING, Stage.SNAPSHOTTING, Actor.SNAPSHOTTER, "", "",
        "snapshot " + Fields.string(content, "status", "snapshotHandle") + " is cut; EC2 is still copying it"
            + " (EBS snapshots take minutes to hours)");
  }

  Diagnosis diagnose(Views.GroupSnapshotView v) {
    GenericKubernetesResource group = v.group();
    GenericKubernetesResource content = v.content();
    List<String> seen = new ArrayList<>();
    String subject = "volumegroupsnapshot " + group.getMetadata().getNamespace() + "/" + group.getMetadata().getName();
    seen.add("VolumeGroupSnapshot " + group.getMetadata().getNamespace() + "/" + group.getMetadata().getName()
        + ": class " + orNone(Fields.string(group, "spec", "volumeGroupSnapshotClassName")) + ", readyToUse "
        + Fields.isTrue(group, "status", "readyToUse"));
    if (content != null) {
      seen.add("VolumeGroupSnapshotContent " + content.getMetadata().getName() + ": group "
          + orNone(Fields.string(content, "status", "volumeGroupSnapshotHandle")));
    }
    Evidence.sidecarEvidence(v.driver(), Actor.SNAPSHOTTER, v.now(), seen);
    Finding finding = groupSnapshotFinding(v, group, content);
    LogQuery query = finding.stage() == null ? null : Wording.controllerQuery(v.driver(), finding.actor(),
        finding.stage().csiMethod, "");
    return wording.word(subject, finding, v.driver(), "", "", "", null, seen, v.gaps(), List.of(), query);
  }

  private Finding groupSnapshotFinding(Views.GroupSnapshotView v, GenericKubernetesResource group,
      GenericKubernetesResource content) {
    if (Fields.isTrue(group, "status", "readyToUse")) {
      return Finding.healthy("ready to use (group " + Fields.string(content, "status", "volumeGroupSnapshotHandle")
          + ")");
    }
    String contentError = Fields.string(content, "status", "error", "message");
    if (!contentError.isEmpty()) {
      return new Finding(Verdict.FAILED, Stage.GROUP_SNAPSHOTTING, Actor.SNAPSHOTTER, "", contentError,
          "CreateVolumeGroupSnapshot failed");
    }
    String groupError = Fields.string(group, "status", "error", "message");
    if (v.classMissing()) {
      String className = Fields.string(group, "spec", "volumeGroupSnapshotClassName");
      return new Finding(Verdict.FAILED, Stage.GROUP_SNAPSHOTTING, Actor.SNAPSHOT_CONTROLLER, "",
          groupError.isEmpty() ? "volumegroupsnapshotclass \"" + className + "\" not found" : groupError,
          "the group snapshot's VolumeGroupSnapshotClass " + className + " does not exist");
    }
    if (!groupError.isEmpty()) {
      return new Finding(Verdict.FAILED, Stage.GROUP_SNAPSHOTTING, content == null ? Actor.SNAPSHOT_CONTROLLER
          : Actor.SNAPSHOTTER, "", groupError, "the group snapshot failed");
    }
    Optional<Event> warning = latestWarning(v.events(), group).or(() -> latestWarning(v.events(), content));
    if (warning.isPresent()) {
      return new Finding(Verdict.FAILED, Stage.GROUP_SNAPSHOTTING, content != null ? Actor.SNAPSHOTTER
          : Actor.SNAPSHOT_CONTROLLER, "", warning.get().getMessage(), "the group snapshot failed");
    }
    if (content == null) {
      return byAge(Views.created(group), Stage.GROUP_SNAPSHOTTING, Actor.SNAPSHOT_CONTROLLER, "",
          "no VolumeGroupSnapshotContent yet: snapshot-controller has not made one (is it running with the"
              + " CSIVolumeGroupSnapshot feature gate? do the claims match the selector?)");
    }
    if (Fields.string(content, "status", "volumeGroupSnapshotHandle").isEmpty()) {
      String missing = v.driver().sidecarMissing(Actor.SNAPSHOTTER, v.now());
      return byAge(Views.created(content), Stage.GROUP_SNAPSHOTTING, Actor.SNAPSHOTTER, "", missing.isEmpty()
          ? "CreateVolumeGroupSnapshot has not returned a group yet (is csi-snapshotter running with"
              + " --feature-gates=CSIVolumeGroupSnapshot=true?)" : missing);
    }
    return new Finding(Verdict.PROGRESSING, Stage.GROUP_SNAPSHOTTING, Actor.SNAPSHOTTER, "", "",
        "group " + Fields.string(content, "status", "volumeGroupSnapshotHandle") + " is cut; EC2 is still copying"
            + " its snapshots");
  }

  private static Optional<Event> latestWarning(Views.Events events, GenericKubernetesResource object) {
    return object == null ? Optional.empty() : events.of(object).stream().filter(e -> "Warning".equals(e.getType()))
        .max(Comparator.comparing(Views::time));
  }

  private static Optional<Event> warnings(SnapshotView v, GenericKubernetesResource object) {
    return v.events().of(object).stream().filter(e -> "Warning".equals(e.getType()))
        .max(Comparator.comparing(Views::time));
  }

  // ---------------------------------------------------------------- helpers

  private Finding byAge(Instant since, Stage stage, Actor actor, String node, String summary) {
    return new Finding(overdue(since) ? Verdict.STUCK : Verdict.PROGRESSING, stage, actor, node, "",
        summary + " (for " + age(since) + ")");
  }

  private boolean overdue(Instant since) {
    return since != null && Duration.between(since, clock.instant()).compareTo(stuckAfter) > 0;
  }

  private String age(Instant since) {
    Duration d = Duration.between(since, clock.instant());
    if (d.toHours() >= 48) {
      return d.toDays() + "d";
    }
    if (d.toMinutes() >= 120) {
      return d.toHours() + "h";
    }
    return d.toMinutes() >= 2 ? d.toMinutes() + "m" : d.toSeconds() + "s";
  }

  private static boolean inUseOn(VolumeView v, String node) {
    Node n = v.driver().nodes().get(node);
    if (n == null || n.getStatus() == null || n.getStatus().getVolumesInUse() == null || v.pv() == null) {
      return false;
    }
    String unique = "kubernetes.io/csi/" + v.driver().driver().csiName + "^" + handle(v.pv());
    return n.getStatus().getVolumesInUse().contains(unique);
  }

  private static String consumerNode(VolumeView v) {
    return active(v.consumers()).stream().map(p -> p.getSpec().getNodeName()).filter(Objects::nonNull).findFirst()
        .orElse("");
  }

  private static Optional<PersistentVolumeClaimCondition> condition(PersistentVolumeClaim pvc, String type) {
    if (pvc.getStatus() == null || pvc.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return pvc.getStatus().getConditions().stream().filter(c -> type.equals(c.getType()) && "True".equals(
        c.getStatus())).findFirst();
  }

  private static boolean fromKubelet(Event e) {
    return e.getSource() != null && "kubelet".equals(e.getSource().getComponent())
        || "kubelet".equals(e.getReportingComponent());
  }

  private static Optional<String> latestMessage(VolumeView v, PersistentVolumeClaim pvc, String reason) {
    return v.events().latestWarning(pvc, reason).map(Event::getMessage);
  }

  private static boolean restoring(PersistentVolumeClaim pvc) {
    return Views.dataSource(pvc).map(d -> "VolumeSnapshot".equals(d.kind())).orElse(false);
  }

  private static String annotation(PersistentVolumeClaim pvc, String key) {
    return pvc.getMetadata().getAnnotations() == null ? null : pvc.getMetadata().getAnnotations().get(key);
  }

  private static String healthySummary(VolumeView v) {
    if (v.pvc() == null) {
      return "the PV is " + (v.pv().getStatus() == null ? "-" : v.pv().getStatus().getPhase());
    }
    List<Pod> pods = active(v.consumers());
    String users = pods.isEmpty() ? "no pod uses it" : "used by " + pods.stream()
        .map(p -> p.getMetadata().getName() + (p.getSpec().getNodeName() == null ? "" : " on "
            + p.getSpec().getNodeName())).toList();
    return "Bound to " + pvName(v) + " (" + handle(v.pv()) + "), " + users;
  }

}
