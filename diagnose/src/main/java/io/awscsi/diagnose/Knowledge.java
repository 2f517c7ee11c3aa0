package io.awscsi.diagnose;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What diagnose knows, in one place: for each stage of a volume's life the component that does it, the container that
 * holds the answer, where Kubernetes shows its errors, what a failure there means and what to do; and the error
 * messages it recognises, with their meaning and remedy. The inference ({@link StageInference}) names stages and
 * components from here, the report and its kubectl commands are worded from here, and docs/diagnose.md's table
 * "which log for which stage" is generated from here ({@link StageTable},
 * {@code aws-csi-driver diagnose --print-table}).
 */
final class Knowledge {

  private Knowledge() {}

  /** Who does the work of a stage. */
  enum Actor {
    SCHEDULER("kube-scheduler", null),
    /** The attach-detach and PV controllers: VolumeAttachments for scheduled pods, claim protection, binding. */
    CONTROLLER_MANAGER("kube-controller-manager", null),
    PROVISIONER("csi-provisioner", ""),
    ATTACHER("csi-attacher", "external-attacher-leader-"),
    RESIZER("csi-resizer", "external-resizer-"),
    SNAPSHOTTER("csi-snapshotter", "external-snapshotter-leader-"),
    /** Binds VolumeSnapshots to contents; runs once per cluster, not in the driver's pods. */
    SNAPSHOT_CONTROLLER("snapshot-controller", null),
    /** Called by the kubelet of the pod's node. */
    NODE_PLUGIN("node-plugin", null);

    /** The name a report gives the component: the sidecar's container name, or the Kubernetes component. */
    final String component;
    /** The sidecar's Lease name before the sanitised driver name; null for what is not a controller sidecar. */
    private final String leasePrefix;

    Actor(String component, String leasePrefix) {
      this.component = component;
      this.leasePrefix = leasePrefix;
    }

    boolean isSidecar() {
      return leasePrefix != null;
    }

    /**
     * The Lease the sidecar's replicas elect a leader on, as each sidecar names it (csi-provisioner v6: the driver
     * name; csi-attacher v4: external-attacher-leader-; csi-resizer v2: external-resizer-; csi-snapshotter v8:
     * external-snapshotter-leader-), in the sidecar's namespace unless --leader-election-namespace says otherwise.
     */
    String leaseName(Driver driver) {
      if (!isSidecar()) {
        throw new IllegalStateException(component + " is not a controller sidecar");
      }
      return leasePrefix + driver.leaseSuffix();
    }

    /** The container that holds the answer, for the docs table: where it runs and which container. */
    String container(Driver driver) {
      return switch (this) {
        case SCHEDULER -> "the pod's events (the scheduler's own log is the control plane's)";
        case CONTROLLER_MANAGER -> "the pod's events (kube-controller-manager's log is the control plane's)";
        case SNAPSHOT_CONTROLLER -> "snapshot-controller (Lease snapshot-controller-leader)";
        case NODE_PLUGIN -> driver.pluginContainer() + " in the " + driver.nodeApp()
            + " pod on the pod's node (and that node's kubelet log)";
        default -> component + " and " + driver.pluginContainer() + " in the " + driver.controllerApp()
            + " pod holding the Lease " + leaseName(driver);
      };
    }

    /** The docs table's commands, with the pod left as a placeholder. */
    List<String> commandTemplates(Driver driver) {
      return switch (this) {
        case SCHEDULER, CONTROLLER_MANAGER -> List.of("kubectl -n NS describe pod POD");
        case SNAPSHOT_CONTROLLER -> List.of("kubectl -n kube-system logs deploy/snapshot-controller");
        case NODE_PLUGIN -> List.of("kubectl -n kube-system logs " + driver.nodeApp() + "-XXXXX -c "
            + driver.pluginContainer() + " | grep VOLUME_ID");
        default -> List.of("kubectl -n kube-system logs " + driver.controllerApp() + "-XXXXX -c " + component,
            "kubectl -n kube-system logs " + driver.controllerApp() + "-XXXXX -c " + driver.pluginContainer()
                + " | grep VOLUME_ID");
      };
    }
  }

  /** The stages of a volume's life, in the order they happen. */
  enum Stage {
    SCHEDULING("Scheduling", Actor.SCHEDULER, null,
        "pod events FailedScheduling",
        "The scheduler found no node for the pod because of its volume: the volume's zone has no fitting node, a"
            + " node's attachment limit is reached, or the driver is not installed on the nodes.",
        "Read the FailedScheduling message: add nodes in the volume's zone, free attachments, or check the node"
            + " plugin DaemonSet runs on the nodes."),
    PROVISIONING("Provisioning", Actor.PROVISIONER, "CreateVolume",
        "PVC events ProvisioningFailed",
        "The provisioner's CreateVolume failed or has not finished: the volume does not exist yet.",
        "Fix the cause the error names; the provisioner retries with backoff and then succeeds by itself."),
    RESTORING("Restoring", Actor.PROVISIONER, "CreateVolume",
        "PVC events ProvisioningFailed; the VolumeSnapshot's readyToUse",
        "The volume is made from a VolumeSnapshot: CreateVolume waits for the snapshot to be ready, and fails when"
            + " the volume cannot be created from it.",
        "Check the snapshot (aws-csi-driver diagnose volumesnapshot NS/NAME); the claim must be at least the"
            + " snapshot's size."),
    ATTACHING("Attaching", Actor.ATTACHER, "ControllerPublishVolume",
        "VolumeAttachment status.attachError; pod events FailedAttachVolume",
        "The attacher's ControllerPublishVolume (EC2 AttachVolume to the node's instance) failed or has not finished.",
        "Fix the cause the error names; the attacher retries. A full instance, an IAM denial or a volume in another"
            + " zone does not heal by itself."),
    STAGING("Staging", Actor.NODE_PLUGIN, "NodeStageVolume",
        "pod events FailedMount (MountVolume.MountDevice failed)",
        "The node plugin's NodeStageVolume failed: it could not find the attached device, make its file system or"
            + " mount it at the staging path.",
        "Read the node plugin's log on that node; the kubelet retries with backoff."),
    PUBLISHING("Publishing", Actor.NODE_PLUGIN, "NodePublishVolume",
        "pod events FailedMount (MountVolume.SetUp failed)",
        "The node plugin's NodePublishVolume failed: the mount of the staged volume into the pod's directory.",
        "Read the node plugin's log on that node; check the mount options and the pod's fsGroup."),
    EXPANDING_CONTROLLER("Expanding in the controller", Actor.RESIZER, "ControllerExpandVolume",
        "PVC events VolumeResizeFailed, condition ControllerResizeError, status.allocatedResourceStatuses",
        "The resizer's ControllerExpandVolume (EC2 ModifyVolume) failed or has not finished.",
        "Fix the cause the error names; EC2 allows one modification per volume every 6 hours. The resizer retries;"
            + " setting the request back to the current size cancels the expansion."),
    EXPANDING_NODE("Expanding on the node", Actor.NODE_PLUGIN, "NodeExpandVolume",
        "PVC and pod events FileSystemResizeFailed, condition NodeResizeError or FileSystemResizePending",
        "The volume grew in EC2; growing the file system on the node (resize2fs, xfs_growfs) failed, or waits for a"
            + " pod to mount the volume.",
        "A claim with FileSystemResizePending grows when a pod mounts it; otherwise read the node plugin's log."),
    MODIFYING("Modifying", Actor.RESIZER, "ControllerModifyVolume",
        "PVC status.modifyVolumeStatus, events VolumeModifyFailed, condition ModifyVolumeError",
        "Changing the volume to its VolumeAttributesClass (type, IOPS, throughput) failed or has not finished.",
        "Fix the class or pick another; Infeasible means the class's parameters are refused and are not retried."),
    SNAPSHOTTING("Snapshotting", Actor.SNAPSHOTTER, "CreateSnapshot",
        "VolumeSnapshotContent status.error, VolumeSnapshot status.error and events",
        "The snapshotter's CreateSnapshot (EC2 CreateSnapshot) failed, or the snapshot has not been cut yet.",
        "Fix the cause the error names; the snapshotter retries."),
    GROUP_SNAPSHOTTING("Group snapshotting", Actor.SNAPSHOTTER, "CreateVolumeGroupSnapshot",
        "VolumeGroupSnapshotContent status.error, VolumeGroupSnapshot status.error and events",
        "The snapshotter's CreateVolumeGroupSnapshot (EC2 CreateSnapshots of the members' instance) failed, or the"
            + " group has not been cut yet. Members not all attached to one instance are refused unless the"
            + " VolumeGroupSnapshotClass says crashConsistency: bestEffort.",
        "Fix the cause the error names (attach the members to one node, or accept best effort); the snapshotter"
            + " retries."),
    DETACHING("Detaching", Actor.ATTACHER, "ControllerUnpublishVolume",
        "VolumeAttachment status.detachError; the node's status.volumesInUse",
        "The kubelet unmounts (NodeUnpublishVolume, NodeUnstageVolume) first, then the attacher's"
            + " ControllerUnpublishVolume detaches the volume in EC2.",
        "While the node still lists the volume in use read its node plugin's log, else the attacher's; a node that"
            + " is gone is force-detached after 6 minutes."),
    DELETING("Deleting", Actor.PROVISIONER, "DeleteVolume",
        "PV events VolumeFailedDelete; PV phase Released or Failed",
        "The provisioner's DeleteVolume (EC2 DeleteVolume) failed: the volume is still attached, or IAM denies it.",
        "Fix the cause the error names; the provisioner retries.");

    final String title;
    final Actor actor;
    /** The CSI call of this stage whose line the driver's log holds; null when the driver is not called. */
    final String csiMethod;
    /** Where Kubernetes shows this stage's errors. */
    final String evidence;
    final String meaning;
    final String action;

    Stage(String title, Actor actor, String csiMethod, String evidence, String meaning, String action) {
      this.title = title;
      this.actor = actor;
      this.csiMethod = csiMethod;
      this.evidence = evidence;
      this.meaning = meaning;
      this.action = action;
    }
  }

  /**
   * An error message diagnose recognises: what it means and what to do.
   *
   * @param stages the stages it applies to (empty: any)
   * @param blames the component it points at instead of the stage's own (the node plugin for a driver that is not
   *     registered on the node), or null
   */
  record KnownError(String id, Pattern pattern, Set<Stage> stages, Actor blames, String meaning, String action) {

    boolean matches(Stage stage, String message) {
      return (stages.isEmpty() || stages.contains(stage)) && pattern.matcher(message).find();
    }
  }

  private static KnownError known(String id, String regex, Set<Stage> stages, Actor blames, String meaning,
      String action) {
    return new KnownError(id, Pattern.compile(regex, Pattern.CASE_INSENSITIVE), stages, blames, meaning, action);
  }

  private static final Set<Stage> ANY = Set.of();
  private static final Set<Stage> CREATE = Set.of(Stage.PROVISIONING, Stage.RESTORING);

  /** Checked in order; the first that matches explains the message. */
  static final String STORAGE_CLASS_MISSING = "storage-class-missing";
  static final String SNAPSHOT_CLASS_MISSING = "snapshot-class-missing";
  static final String SNAPSHOT_SOURCE_NOT_BOUND = "snapshot-source-not-bound";
  static final String RESTORE_SOURCE_MISSING = "restore-source-missing";
  static final String VAC_MISSING = "vac-missing";

  static final List<KnownError> ERRORS = List.of(
      // What no driver call causes comes first: a message that quotes these is never a driver's failure.
      known(STORAGE_CLASS_MISSING, "storageclass\\.storage\\.k8s\\.io \"[^\"]*\" not found",
          Set.of(Stage.PROVISIONING, Stage.RESTORING), Actor.CONTROLLER_MANAGER,
          "The claim names the StorageClass {storageClass}, which does not exist: the PV controller cannot tell"
              + " which provisioner to ask, so no driver was called and no volume was made.",
          "Create the StorageClass {storageClass} (kubectl get storageclass lists those that exist), or recreate the"
              + " claim with an existing class; once the class exists the claim is provisioned by itself."),
      known(SNAPSHOT_CLASS_MISSING, "volumesnapshotclass[^ ]* \"[^\"]*\" not found|failed to get (the )?snapshot"
              + " class|cannot find default snapshot class|default snapshot class", Set.of(Stage.SNAPSHOTTING),
          Actor.SNAPSHOT_CONTROLLER,
          "The VolumeSnapshot names a VolumeSnapshotClass that does not exist (or names none and no class is the"
              + " driver's default): snapshot-controller makes no VolumeSnapshotContent, so csi-snapshotter is not"
              + " asked and no CreateSnapshot reaches the driver or EC2.",
          "Create the VolumeSnapshotClass it names (driver ebs.csi.aws.com; kubectl get volumesnapshotclass lists"
              + " those that exist), or delete the VolumeSnapshot and make it again with an existing class;"
              + " snapshot-controller retries by itself once the class exists."),
      known(SNAPSHOT_SOURCE_NOT_BOUND, "not yet bound to a PV", Set.of(Stage.SNAPSHOTTING),
          Actor.SNAPSHOT_CONTROLLER,
          "The VolumeSnapshot's source claim was not Bound when snapshot-controller looked: it makes no"
              + " VolumeSnapshotContent for a claim without a volume, so no CreateSnapshot reaches the driver or EC2.",
          "Let the claim bind first (aws-csi-driver diagnose pvc NS/CLAIM says why it does not); snapshot-controller"
              + " retries, and if the VolumeSnapshot keeps its error, delete it and make it again once the claim is"
              + " Bound."),
      known("snapshot-source-missing", "failed to retrieve PVC .*not found"
              + "|persistentvolumeclaims? \\\\?\"[^\"]*\\\\?\" not found|PersistentVolumeClaim \\S+ not found",
          Set.of(Stage.SNAPSHOTTING), Actor.SNAPSHOT_CONTROLLER,
          "The VolumeSnapshot names a source claim that does not exist (in its namespace): snapshot-controller makes"
              + " no VolumeSnapshotContent, so no CreateSnapshot reaches the driver or EC2.",
          "Delete the VolumeSnapshot and make it again naming an existing claim of the same namespace."),
      known(RESTORE_SOURCE_MISSING, "volumesnapshots?\\.snapshot\\.storage\\.k8s\\.io \\\\?\"[^\"]*\\\\?\" not found"
              + "|VolumeSnapshot \\S+ not found", Set.of(Stage.RESTORING), null,
          "The claim restores from a VolumeSnapshot that does not exist (in its namespace): csi-provisioner has no"
              + " snapshot to restore, so no CreateVolume reaches the driver and no volume is made.",
          "Create the VolumeSnapshot the claim names, or recreate the claim with an existing one (kubectl get"
              + " volumesnapshot -n NS); the provisioner retries by itself."),
      known("selected-node-gone", "failed to get target node", CREATE, null,
          "The node the scheduler picked for this WaitForFirstConsumer claim (annotation"
              + " volume.kubernetes.io/selected-node) no longer exists: csi-provisioner stops before CreateVolume.",
          "Nothing if the pod is still wanted: csi-provisioner drops the annotation and the scheduler picks another"
              + " node; if it repeats, delete the pod so that it is scheduled again."),
      known(VAC_MISSING, "VAC \\S+ does not exist|modifyVolumeStatus Pending|volumeattributesclass[^ ]* \"[^\"]*\" not found",
          Set.of(Stage.MODIFYING), null,
          "The claim names a VolumeAttributesClass that does not exist: csi-resizer leaves the modification Pending"
              + " and sends no ControllerModifyVolume, so the driver and EC2 are not asked.",
          "Create the VolumeAttributesClass (kubectl get volumeattributesclass lists those that exist) or set the"
              + " claim's volumeAttributesClassName back to its current class; csi-resizer then goes on by itself."),
      known("driver-not-registered", "does not contain driver|not found in the list of registered CSI drivers"
              + "|CSI driver is not installed on the node|has no NodeID annotation", ANY, Actor.NODE_PLUGIN,
          "The node plugin is not registered with the kubelet on this node: it is not running there, or its"
              + " registration failed, so nothing on the node can attach or mount the volume.",
          "Check the node plugin pod on the node (kubectl -n kube-system get pods -l app={nodeApp} -o wide): the"
              + " DaemonSet's nodeSelector, tolerations or a crash may keep it off; its log says why it stopped."),
      known("node-plugin-unreachable", "csi\\.sock: connect: (connection refused|no such file or directory)"
              + "|Error while dialing.*csi\\.sock", ANY, Actor.NODE_PLUGIN,
          "The kubelet cannot reach the node plugin's socket on this node: the plugin is not running there (it was"
              + " stopped or crashed and its registration is left behind).",
          "Check the node plugin pod on the node (kubectl -n kube-system get pods -l app={nodeApp} -o wide) and its"
              + " previous log (kubectl logs --previous); the kubelet retries once it serves again."),
      known("ec2-quota", "VolumeLimitExceeded|MaxIOPSLimitExceeded|InsufficientVolumeCapacity|ResourceLimitExceeded"
              + "|raise the EC2 quota", CREATE,
          null, "EC2 refused to create the volume: an account quota is used up (VolumeLimitExceeded: the storage of"
              + " this volume type; MaxIOPSLimitExceeded: provisioned IOPS) or the zone has no capacity of this type"
              + " (InsufficientVolumeCapacity).",
          "Raise the quota in Service Quotas (Amazon Elastic Block Store), delete unused volumes, or use another volume"
              + " type or zone; the provisioner retries by itself once EC2 accepts."),
      known("efs-access-points", "AccessPointLimitExceeded|access-point quota", CREATE, null,
          "EFS refused a new access point: the file system has as many as its quota allows (1,000 or 10,000 per file"
              + " system).",
          "Raise 'Access points per file system' in Service Quotas, delete unused EFS volumes, or use a StorageClass"
              + " with provisioningMode efs-dir, which needs no access point."),
      known("efs-gids", "free GID|no free GID|gidRange", CREATE, null,
          "Every GID of the StorageClass's gidRangeStart..gidRangeEnd is taken by an access point.",
          "Widen the range in a new StorageClass, or delete unused EFS volumes of this class."),
      known("bad-parameter", "unknown StorageClass parameter|StorageClass parameter|must be a positive whole number"
              + "|code = InvalidArgument", CREATE, null,
          "The StorageClass has a parameter the driver refuses (the message names it): no volume is created with it.",
          "StorageClasses cannot be changed: create a corrected class (kubectl get storageclass {storageClass} -o"
              + " yaml) and a new PVC with it; this claim keeps failing."),
      known("iam-denied", "UnauthorizedOperation|AccessDenied|PermissionDenied|not authorized", ANY, null,
          "AWS refused the call: the driver's IAM role does not allow this action on this resource.",
          "Check the IAM role of the driver's service account (IRSA or Pod Identity) allows the action named; see the"
              + " policies in helm/iam."),
      known("attach-stuck", "stuck in attaching", Set.of(Stage.ATTACHING), null,
          "EC2 kept the attachment in 'attaching' longer than the driver waits: the driver detached it and retries on"
              + " another device name. This usually comes from the instance (a device name still in use there, an"
              + " instance in a bad state).",
          "Check the volume in EC2 (aws ec2 describe-volumes --volume-ids {volumeId}); if attaches keep sticking on"
              + " this instance, drain the node and replace it."),
      known("attach-timeout", "DeadlineExceeded|context deadline exceeded|timed out waiting for external-attacher",
          Set.of(Stage.ATTACHING, Stage.DETACHING), null,
          "The call did not finish within the attacher's timeout; EC2 may still be working on it.",
          "Read the driver's ControllerPublishVolume lines and the volume's state in EC2; the attacher retries."),
      known("attach-limit", "AttachmentLimitExceeded|exceed max volume count|attachment limit", ANY, null,
          "The node has as many volumes attached as its instance type allows (the CSINode's allocatable count).",
          "Move pods to other nodes, use an instance type that takes more volumes, or lower the volumes per node."),
      known("multi-attach", "Multi-Attach error", Set.of(Stage.ATTACHING), Actor.CONTROLLER_MANAGER,
          "The volume (ReadWriteOnce) is still attached to another node: a pod there uses it, or the old node has not"
              + " detached it yet.",
          "Find the other VolumeAttachment of the volume (kubectl get volumeattachments | grep {pv}); stop the pod"
              + " there, or wait for the detach (6 minutes for a node that is gone)."),
      known("zone-conflict", "node affinity|didn't match PersistentVolume's node affinity", Set.of(Stage.SCHEDULING),
          null, "The volume lives in one zone and no node there fits the pod.",
          "Add nodes in the volume's zone, or use a StorageClass with volumeBindingMode WaitForFirstConsumer for new"
              + " claims."),
      known("mkfs", "mkfs|making .*file system|format", Set.of(Stage.STAGING), null,
          "Making the file system on the new volume failed: mkfs refused the options the StorageClass gives"
              + " (blockSize, inodeSize, bytesPerInode, numberOfInodes, ext4ClusterSize) or the device.",
          "Read mkfs's words in the message; fix the format parameters in a new StorageClass and use a new claim"
              + " (the device is never formatted over)."),
      known("efs-mount", "mount\\.efs|efs-utils|port 2049|mount target|Failed to resolve", Set.of(Stage.PUBLISHING,
              Stage.STAGING), null,
          "Mounting the EFS file system on the node failed: no mount target in the node's zone, a security group"
              + " that does not allow NFS (TCP 2049) from the node, or the file system's DNS name not resolvable.",
          "Check the file system's mount targets and their security groups (aws efs describe-mount-targets"
              + " --file-system-id FS_ID); the node plugin's log has mount.efs's own words."),
      known("fs-mismatch", "holds an? .*file system but|refusing to format", Set.of(Stage.STAGING), null,
          "The device already has another file system or data: the driver never formats over it.",
          "Set the PV's fsType to the file system the volume has, or use a new volume."),
      known("modify-rate", "VolumeModificationRateExceeded|modifications per volume|IncorrectModificationState"
              + "|previous modification", Set.of(Stage.EXPANDING_CONTROLLER, Stage.MODIFYING), null,
          "EC2 refused the modification: a volume can be modified once every 6 hours, and only after the previous"
              + " modification reached optimizing or completed.",
          "Wait (aws ec2 describe-volumes-modifications --volume-ids {volumeId}); the resizer retries. Setting the"
              + " request back to the current size gives up the expansion."),
      known("resize-fs", "resize2fs|xfs_growfs|CAP_SYS_RESOURCE", Set.of(Stage.EXPANDING_NODE), null,
          "Growing the file system on the node failed.",
          "Read the node plugin's log on the node; the kubelet retries when the pod is started again."),
      known("snapshot-quota", "SnapshotLimitExceeded|ConcurrentSnapshotLimitExceeded"
              + "|SnapshotCreationPerVolumeRateExceeded", Set.of(Stage.SNAPSHOTTING), null,
          "EC2 refused the snapshot: the snapshot quota of the account, or the number of snapshots in progress (per"
              + " volume or in all), is used up.",
          "Delete old snapshots or raise the quota; space out the snapshots of one volume; the snapshotter retries."),
      known("snapshot-not-ready", "snapshot .*not ready|not ready to use|readyToUse", Set.of(Stage.RESTORING), null,
          "The VolumeSnapshot the claim restores from is not ready yet.",
          "Wait for the snapshot, or diagnose it: aws-csi-driver diagnose volumesnapshot NS/NAME."),
      known("volume-gone", "InvalidVolume.NotFound|code = NotFound", ANY, null,
          "The volume does not exist in EC2 any more (deleted outside Kubernetes, or in another region or account).",
          "If it was deleted on purpose, delete the PV; else check the driver's region and the volume id."),
      known("volume-in-use", "VolumeInUse|is attached to|in use", Set.of(Stage.DELETING, Stage.ATTACHING), null,
          "The volume is still attached or in use elsewhere.",
          "Find what still uses it (aws ec2 describe-volumes --volume-ids {volumeId}); the call succeeds once it is"
              + " detached."),
      known("throttled", "RequestLimitExceeded|Throttl", ANY, null,
          "EC2 throttled the driver's calls: too many calls in the account and region.",
          "The driver backs off and retries; if it lasts, look for other tools calling EC2 in the same account."),
      known("in-flight", "code = Aborted|already in progress|operation .* already exists", ANY, null,
          "Another call for the same volume was still running: the sidecar retries this one.",
          "Nothing, unless it repeats for minutes: then read the driver's log for the call that does not finish."));

  /**
   * Not one of {@link #ERRORS}: what a failure means when no known error explains it and nothing shows the driver was
   * called. A CSI sidecar or the kubelet quotes the driver's answer as a gRPC status ("rpc error: code = ...
   * desc = ..."); a message without one comes from the component itself, stopped before the call (an object it
   * needs is missing or not ready). Explaining it with the stage's CSI call would send the user to EC2 and to the
   * driver's log for a call that was never made. The driver's own log overrules it: a line of that call about the
   * volume means the driver was called after all ({@link Diagnosis#withDriverLog}).
   */
  static final KnownError NO_DRIVER_CALL = new KnownError("no-driver-call", Pattern.compile("(?!)"), ANY, null,
      "{component} reported this itself, before any {call} reached the driver: the message carries no answer of the"
          + " driver (a driver's failure is quoted as \"rpc error: code = ... desc = ...\"), so it is about the"
          + " Kubernetes objects it names, not about AWS, and the driver's log holds nothing of it.",
      "Fix what the message names (the object it cannot find, or the state it waits for: kubectl describe that"
          + " object); {component} retries by itself once it is there.");

  /** Whether the message quotes an answer of the driver (a gRPC status), so the driver was called. */
  static boolean carriesDriverReply(String message) {
    return message.contains("rpc error") || message.contains("code = ") || message.startsWith(
        "allocatedResourceStatuses: ") || message.startsWith("modifyVolumeStatus Infeasible");
  }

  /** The known error of that id. */
  static KnownError byId(String id) {
    return ERRORS.stream().filter(k -> k.id().equals(id)).findFirst().orElseThrow();
  }

  /** The first known error that explains {@code message} at {@code stage}. */
  static Optional<KnownError> explain(Stage stage, String message) {
    if (message == null || message.isEmpty()) {
      return Optional.empty();
    }
    return ERRORS.stream().filter(k -> k.matches(stage, message)).findFirst();
  }
}
