package io.awscsi.diagnose;

import static io.awscsi.diagnose.FakeCluster.CONTROLLER;
import static io.awscsi.diagnose.FakeCluster.DRIVER_NS;
import static io.awscsi.diagnose.FakeCluster.GP3;
import static io.awscsi.diagnose.FakeCluster.INSTANCE;
import static io.awscsi.diagnose.FakeCluster.NODE;
import static io.awscsi.diagnose.FakeCluster.NODE_PLUGIN;
import static io.awscsi.diagnose.FakeCluster.NS;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.diagnose.Diagnosis.Verdict;
import io.awscsi.diagnose.Knowledge.Stage;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The stage inference over realistic object graphs in fabric8's mock API server: each case builds what the cluster
 * holds when that stage fails (the objects, the components' events and statuses, the driver's log lines), and checks
 * the stage, the component, the exact container, the message and the driver's line that diagnose reports.
 */
class StageInferenceTest {

  private static final Duration SINCE = Duration.ofHours(1);
  private static final Duration STUCK_AFTER = Duration.ofMinutes(2);
  private static final String VOLUME = "vol-0f1e2d3c4b5a69788";
  private static final String PROVISIONER_SOURCE = "ebs.csi.aws.com_" + CONTROLLER + "_6b1f0c3e";

  private FakeCluster cluster;

  @BeforeEach
  void start() {
    cluster = FakeCluster.withDriver();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  private List<Diagnosis> diagnose(Target target, Clock clock) {
    return DiagnoseCommand.diagnose(cluster.client, target, SINCE, STUCK_AFTER, clock);
  }

  private Diagnosis diagnosePvc(String name, Clock clock) {
    List<Diagnosis> all = diagnose(new Target.Pvc(NS, name), clock);
    assertThat(all).hasSize(1);
    return all.getFirst();
  }

  private Diagnosis diagnosePvc(String name) {
    return diagnosePvc(name, Clock.systemUTC());
  }

  /** A claim of the WaitForFirstConsumer class, a pod on NODE, provisioned, attached and mounted. */
  private PersistentVolume healthyVolume(String claim, String pod) {
    cluster.pendingClaim(claim, GP3, "1Gi");
    cluster.selectNode(claim, NODE);
    PersistentVolume pv = cluster.bind(claim, VOLUME);
    cluster.attachment(pv, NODE, true, null);
    cluster.volumesInUse(NODE, VOLUME);
    cluster.pod(pod, claim, NODE, true);
    return pv;
  }

  private static String textLine(String level, String message) {
    return "2026-11-30T10:15:02.123Z " + level + " ".repeat(Math.max(0, 5 - level.length())) + " calls - " + message;
  }

  @Test
  void aBoundAttachedMountedVolumeIsHealthy() {
    healthyVolume("data", "app");

    Diagnosis d = diagnosePvc("data");

    assertThat(d.verdict()).isEqualTo(Verdict.HEALTHY);
    assertThat(d.stage()).isNull();
    assertThat(d.summary()).contains("Bound to pvc-", VOLUME, "app on " + NODE);
    assertThat(d.evidence()).anyMatch(l -> l.startsWith("CSINode " + NODE + ": ebs.csi.aws.com registered, node id "
        + INSTANCE + ", allocatable 25"));
    assertThat(d.evidence()).anyMatch(l -> l.contains("Lease external-attacher-leader-ebs-csi-aws-com (csi-attacher):"
        + " held by " + CONTROLLER));
    assertThat(Report.exitCode(List.of(d))).isZero();
  }

  @Test
  void aClaimWaitingForItsFirstConsumerIsHealthy() {
    cluster.pendingClaim("later", GP3, "1Gi");

    Diagnosis d = diagnosePvc("later", cluster.later(Duration.ofHours(3)));

    assertThat(d.verdict()).isEqualTo(Verdict.HEALTHY);
    assertThat(d.summary()).contains("WaitForFirstConsumer");
  }

  @Test
  void createVolumeRefusedByAnEc2QuotaIsProvisioningInTheLeaseHoldersProvisioner() {
    PersistentVolumeClaim pvc = cluster.pendingClaim("data", GP3, "500Gi");
    cluster.selectNode("data", NODE);
    cluster.pod("app", "data", NODE, false);
    String refusal = "CreateVolume of pvc-" + pvc.getMetadata().getUid() + ": VolumeLimitExceeded: You have exceeded"
        + " your maximum gp3 storage limit of 100 TiB in this region; raise the EC2 quota or free some";
    cluster.event(pvc, "Warning", "ProvisioningFailed", "failed to provision volume with StorageClass \"gp3\": rpc"
        + " error: code = ResourceExhausted desc = " + refusal, PROVISIONER_SOURCE);
    cluster.log(DRIVER_NS, CONTROLLER, "ebs-plugin", SINCE, String.join("\n",
        textLine("INFO", "CreateVolume: name=pvc-other duration=1501ms outcome=OK"),
        textLine("WARN", "CreateVolume: name=pvc-" + pvc.getMetadata().getUid()
            + " duration=812ms outcome=RESOURCE_EXHAUSTED error=\"" + refusal + "\""),
        ""));

    Diagnosis d = diagnosePvc("data");

    assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
    assertThat(d.stage()).isEqualTo(Stage.PROVISIONING);
    assertThat(d.component()).isEqualTo("csi-provisioner");
    assertThat(d.where()).isEqualTo("csi-provisioner in kube-system/" + CONTROLLER + " (the Lease holder)");
    assertThat(d.error()).contains("VolumeLimitExceeded");
    assertThat(d.knownError()).isEqualTo("ec2-quota");
    assertThat(d.meaning()).contains("quota");
    assertThat(d.commands()).contains("kubectl -n kube-system logs " + CONTROLLER + " -c csi-provisioner --since=1h");
    assertThat(d.driverLog().line()).isNotNull();
    assertThat(d.driverLog().line().outcome()).isEqualTo("RESOURCE_EXHAUSTED");
    assertThat(d.driverLog().line().line()).contains("CreateVolume: name=pvc-" + pvc.getMetadata().getUid());
    assertThat(d.driverLog().pod()).isEqualTo(CONTROLLER);
    assertThat(d.driverLog().note()).contains("1 CreateVolume call(s)", "1 failed");
    assertThat(Report.exitCode(List.of(d))).isEqualTo(1);
  }

  @Test
  void anEfsClaimRefusedAnAccessPointIsProvisioningInTheEfsProvisioner() {
    cluster.withEfs();
    PersistentVolumeClaim pvc = cluster.pendingClaim("shared", "efs-sc", "5Gi");
    cluster.editClaim("shared", c -> {
      c.getMetadata().getAnnotations().put("volume.kubernetes.io/storage-provisioner", "efs.csi.aws.com");
      return c;
    });
    String refusal = "CreateVolume pvc-" + pvc.getMetadata().getUid() + ": file system fs-0123abcd has reached its"
        + " access-point quota (AccessPointLimitExceeded)";
    cluster.event(pvc, "Warning", "ProvisioningFailed", "failed to provision volume with StorageClass \"efs-sc\": rpc"
        + " error: code = ResourceExhausted desc = " + refusal, "efs.csi.aws.com_" + FakeCluster.EFS_CONTROLLER + "_1");
    cluster.log(DRIVER_NS, FakeCluster.EFS_CONTROLLER, "efs-plugin", SINCE, textLine("WARN", "CreateVolume: name=pvc-"
        + pvc.getMetadata().getUid() + " duration=90ms outcome=RESOURCE_EXHAUSTED error=\"" + refusal + "\"") + "\n");

    Diagnosis d = diagnosePvc("shared");

    assertThat(d.stage()).isEqualTo(Stage.PROVISIONING);
    assertThat(d.component()).isEqualTo("csi-provisioner");
    assertThat(d.where()).isEqualTo("csi-provisioner in kube-system/" + FakeCluster.EFS_CONTROLLER
        + " (the Lease holder)");
    assertThat(d.knownError()).isEqualTo("efs-access-points");
    assertThat(d.driverLog().container()).isEqualTo("efs-plugin");
    assertThat(d.driverLog().line().outcome()).isEqualTo("RESOURCE_EXHAUSTED");
    assertThat(d.evidence()).anyMatch(l -> l.startsWith("Lease efs-csi-aws-com (csi-provisioner): held by "
        + FakeCluster.EFS_CONTROLLER)).noneMatch(l -> l.contains("external-attacher"));
  }

  @Test
  void anEfsVolumeIsNotWaitedOnForAnAttach() {
    cluster.withEfs();
    cluster.pendingClaim("shared", "efs-sc", "5Gi");
    cluster.bind("shared", "fs-0123abcd::fsap-0a1b2c3d4e5f60718");
    cluster.client.persistentVolumes().withName(cluster.claim("shared").getSpec().getVolumeName()).edit(pv -> {
      pv.getSpec().getCsi().setDriver("efs.csi.aws.com");
      return pv;
    });
    cluster.pod("app", "shared", NODE, false);

    Diagnosis d = diagnosePvc("shared");

    assertThat(d.verdict()).isEqualTo(Verdict.PROGRESSING);
    assertThat(d.stage()).as("EFS mounts without a VolumeAttachment").isEqualTo(Stage.STAGING);
    assertThat(d.where()).startsWith("the node plugin on " + NODE);
  }

  @Test
  void aBadStorageClassParameterIsProvisioningWithTheParameterNamed() {
    cluster.storageClass("fast", Map.of("type", "gp3", "iops", "lots"), "Immediate");
    PersistentVolumeClaim pvc = cluster.pendingClaim("bad", "fast", "1Gi");
    cluster.event(pvc, "Warning", "ProvisioningFailed", "failed to provision volume with StorageClass \"fast\": rpc"
        + " error: code = InvalidArgument desc = iops: StorageClass parameter iops must be a positive whole number,"
        + " got \"lots\"", PROVISIONER_SOURCE);

    Diagnosis d = diagnosePvc("bad");

    assertThat(d.stage()).isEqualTo(Stage.PROVISIONING);
    assertThat(d.component()).isEqualTo("csi-provisioner");
    assertThat(d.knownError()).isEqualTo("bad-parameter");
    assertThat(d.error()).contains("iops", "\"lots\"");
    assertThat(d.action()).contains("kubectl get storageclass fast -o yaml");
    assertThat(d.driverLog().line()).isNull();
    assertThat(d.driverLog().note()).contains("no CreateVolume line about pvc-" + pvc.getMetadata().getUid());
  }

  @Test
  void aPendingClaimNobodyProvisionsIsStuckWhenNoProvisionerHoldsTheLease() {
    cluster.storageClass("now", Map.of("type", "gp3"), "Immediate");
    cluster.pendingClaim("orphan", "now", "1Gi");
    cluster.deleteLease("ebs-csi-aws-com");

    Diagnosis young = diagnosePvc("orphan");
    Diagnosis old = diagnosePvc("orphan", cluster.later(Duration.ofMinutes(10)));

    assertThat(young.verdict()).isEqualTo(Verdict.PROGRESSING);
    assertThat(Report.exitCode(List.of(young))).isZero();
    assertThat(old.verdict()).isEqualTo(Verdict.STUCK);
    assertThat(old.stage()).isEqualTo(Stage.PROVISIONING);
    assertThat(old.summary()).contains("no csi-provisioner leads: the Lease ebs-csi-aws-com is not there");
    assertThat(old.where()).isEqualTo("csi-provisioner (no replica holds the Lease ebs-csi-aws-com)");
  }

  @Test
  void anAttachStuckInAttachingIsAttachingInTheAttacherWithTheDriversJsonLine() {
    cluster.storageClass("now", Map.of("type", "gp3"), "Immediate");
    cluster.pendingClaim("data", "now", "1Gi");
    PersistentVolume pv = cluster.bind("data", VOLUME);
    cluster.pod("app", "data", NODE, false);
    String stuck = "volume " + VOLUME + " was stuck in attaching to " + INSTANCE + " as /dev/xvdaa for more than"
        + " 90 s; it was detached and the attach will be retried with another device name";
    cluster.attachment(pv, NODE, false, "rpc error: code = Unavailable desc = " + stuck);
    cluster.log(DRIVER_NS, CONTROLLER, "ebs-plugin", SINCE, String.join("\n",
        "{\"@timestamp\":\"2026-11-30T10:15:02.123Z\",\"ecs.version\":\"1.2.0\",\"log.level\":\"WARN\",\"message\":"
            + "\"Volume " + VOLUME + " stuck attaching\",\"log.logger\":\"io.awscsi.ebs.controller.VolumeAttachmentWaiter\"}",
        "{\"@timestamp\":\"2026-11-30T10:15:03.456Z\",\"ecs.version\":\"1.2.0\",\"log.level\":\"WARN\",\"message\":"
            + "\"ControllerPublishVolume: volume=" + VOLUME + " node=" + INSTANCE
            + " duration=91234ms outcome=UNAVAILABLE error=\\\"" + stuck + "\\\"\",\"process.thread.name\":\"v-1\","
            + "\"log.logger\":\"csi.calls\",\"grpcCode\":\"UNAVAILABLE\",\"rpc\":\"ControllerPublishVolume\","
            + "\"volumeId\":\"" + VOLUME + "\"}"));

    Diagnosis d = diagnosePvc("data");

    assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
    assertThat(d.stage()).isEqualTo(Stage.ATTACHING);
    assertThat(d.component()).isEqualTo("csi-attacher");
    assertThat(d.where()).isEqualTo("csi-attacher in kube-system/" + CONTROLLER + " (the Lease holder)");
    assertThat(d.knownError()).isEqualTo("attach-stuck");
    assertThat(d.error()).contains("stuck in attaching");
    assertThat(d.node()).isEqualTo(NODE);
    assertThat(d.driverLog().line().method()).isEqualTo("ControllerPublishVolume");
    assertThat(d.driverLog().line().nodeId()).isEqualTo(INSTANCE);
    assertThat(d.driverLog().line().error()).isEqualTo(stuck);
    assertThat(d.commands()).anyMatch(c -> c.startsWith("kubectl get volumeattachments"));
  }

  @Test
  void anAttachWithNoAnswerIsInProgressThenStuck() {
    cluster.storageClass("now", Map.of("type", "gp3"), "Immediate");
    cluster.pendingClaim("data", "now", "1Gi");
    PersistentVolume pv = cluster.bind("data", VOLUME);
    cluster.pod("app", "data", NODE, false);
    cluster.attachment(pv, NODE, false, null);

    Diagnosis young = diagnosePvc("data");
    Diagnosis old = diagnosePvc("data", cluster.later(Duration.ofMinutes(5)));

    assertThat(young.verdict()).isEqualTo(Verdict.PROGRESSING);
    assertThat(young.stage()).isEqualTo(Stage.ATTACHING);
    assertThat(old.verdict()).isEqualTo(Verdict.STUCK);
    assertThat(old.stage()).isEqualTo(Stage.ATTACHING);
    assertThat(old.component()).isEqualTo("csi-attacher");
    assertThat(old.summary()).contains("is not attached yet, with no error", "(for 5m)");
  }

  @Test
  void theNodePluginNotRunningOnThePodsNodeIsBlamedForTheAttach() {
    cluster.storageClass("now", Map.of("type", "gp3"), "Immediate");
    cluster.pendingClaim("data", "now", "1Gi");
    PersistentVolume pv = cluster.bind("data", VOLUME);
    cluster.deleteNodePlugin();
    cluster.csiNode(NODE, false);
    cluster.pod("app", "data", NODE, false);
    cluster.attachment(pv, NODE, false, "CSINode " + NODE + " does not contain driver ebs.csi.aws.com");

    Diagnosis d = diagnosePvc("data");

    assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
    assertThat(d.stage()).isEqualTo(Stage.ATTACHING);
    assertThat(d.component()).isEqualTo("node-plugin");
    assertThat(d.where()).isEqualTo("the node plugin on " + NODE + " (no ebs-csi-node pod there)");
    assertThat(d.knownError()).isEqualTo("driver-not-registered");
    assertThat(d.error()).contains("does not contain driver ebs.csi.aws.com");
    assertThat(d.evidence()).contains("CSINode " + NODE + ": ebs.csi.aws.com not registered",
        "node plugin on " + NODE + ": no ebs-csi-node pod");
    assertThat(d.commands()).contains("kubectl get pods -A -l app=ebs-csi-node -o wide");
    assertThat(d.summary()).contains("the node plugin is not registered on " + NODE, "no ebs-csi-node pod runs there");
    assertThat(d.driverLog().line()).isNull();
    assertThat(d.driverLog().note()).isEqualTo("no ebs-csi-node pod runs on " + NODE
        + ": there is no node plugin log to read");
  }

  @Test
  void aNodePluginKilledWhileRegisteredIsStagingInTheNodePlugin() {
    cluster.storageClass("now", Map.of("type", "gp3"), "Immediate");
    cluster.pendingClaim("data", "now", "1Gi");
    PersistentVolume pv = cluster.bind("data", VOLUME);
    cluster.attachment(pv, NODE, true, null);
    cluster.deleteNodePlugin();
    Pod pod = cluster.pod("app", "data", NODE, false);
    cluster.event(pod, "Warning", "FailedMount", "MountVolume.MountDevice failed for volume \""
        + pv.getMetadata().getName() + "\" : rpc error: code = Unavailable desc = connection error: desc ="
        + " \"transport: Error while dialing: dial unix /var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock: connect:"
        + " connection refused\"", "kubelet");

    Diagnosis d = diagnosePvc("data");

    assertThat(d.stage()).isEqualTo(Stage.STAGING);
    assertThat(d.component()).isEqualTo("node-plugin");
    assertThat(d.knownError()).isEqualTo("node-plugin-unreachable");
    assertThat(d.where()).isEqualTo("the node plugin on " + NODE + " (no ebs-csi-node pod there)");
    assertThat(d.driverLog().line()).isNull();
  }

  @Test
  void mkfsFailingIsStagingInTheNodePluginOfThePodsNode() {
    cluster.storageClass("odd", Map.of("type", "gp3", "blockSize", "512"), "Immediate");
    cluster.pendingClaim("data", "odd", "1Gi");
    PersistentVolume pv = cluster.bind("data", VOLUME);
    cluster.attachment(pv, NODE, true, null);
    Pod pod = cluster.pod("app", "data", NODE, false);
    String failure = "mkfs.ext4 failed on /dev/nvme1n1 (exit 1): mke2fs 1.47.0 (5-Feb-2023)\n"
        + "mkfs.ext4: invalid block size - 512";
    cluster.event(pod, "Warning", "FailedMount", "MountVolume.MountDevice failed for volume \""
        + pv.getMetadata().getName() + "\" : rpc error: code = Internal desc = " + failure, "kubelet");
    cluster.log(DRIVER_NS, NODE_PLUGIN, "ebs-plugin", SINCE, String.join("\n",
        textLine("ERROR", "NodeStageVolume: volume=" + VOLUME + " duration=41ms outcome=INTERNAL error=\"" + failure
            + "\""),
        "java.lang.IllegalStateException: mkfs failed",
        "\tat io.awscsi.core.host.Formatter.format(Formatter.java:80)",
        textLine("INFO", "NodeGetCapabilities: duration=0ms outcome=OK")));

    Diagnosis d = diagnosePvc("data");

    assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
    assertThat(d.stage()).isEqualTo(Stage.STAGING);
    assertThat(d.component()).isEqualTo("node-plugin");
    assertThat(d.where()).isEqualTo("the node plugin on " + NODE + " (kube-system/" + NODE_PLUGIN
        + ", container ebs-plugin)");
    assertThat(d.knownError()).isEqualTo("mkfs");
    assertThat(d.error()).contains("invalid block size - 512");
    assertThat(d.driverLog().pod()).isEqualTo(NODE_PLUGIN);
    assertThat(d.driverLog().line().method()).isEqualTo("NodeStageVolume");
    assertThat(d.driverLog().line().error()).isEqualTo(failure);
    assertThat(d.commands()).contains("kubectl -n kube-system logs " + NODE_PLUGIN + " -c ebs-plugin --since=1h"
        + " | grep " + VOLUME);
    assertThat(d.commands()).anyMatch(c -> c.startsWith("journalctl -u kubelet") && c.contains("on node " + NODE));
  }

  @Test
  void aPublishFailureIsPublishing() {
    cluster.storageClass("now", Map.of("type", "gp3"), "Immediate");
    cluster.pendingClaim("data", "now", "1Gi");
    PersistentVolume pv = cluster.bind("data", VOLUME);
    cluster.attachment(pv, NODE, true, null);
    Pod pod = cluster.pod("app", "data", NODE, false);
    cluster.event(pod, "Warning", "FailedMount", "MountVolume.SetUp failed for volume \"" + pv.getMetadata().getName()
        + "\" : rpc error: code = Internal desc = mount of /var/lib/kubelet/plugins/... failed", "kubelet");

    Diagnosis d = diagnosePvc("data");

    assertThat(d.stage()).isEqualTo(Stage.PUBLISHING);
    assertThat(d.component()).isEqualTo("node-plugin");
    assertThat(d.logQuery().method()).isEqualTo("NodePublishVolume");
  }

  @Test
  void aResizeRefusedByEc2IsExpandingInTheResizer() {
    PersistentVolume pv = healthyVolume("data", "app");
    cluster.editClaim("data", pvc -> {
      pvc.getSpec().getResources().getRequests().put("storage", new Quantity("2Gi"));
      pvc.getStatus().setAllocatedResourceStatuses(Map.of("storage", "ControllerResizeInProgress"));
      return pvc;
    });
    String refusal = "ModifyVolume of " + VOLUME + ": VolumeModificationRateExceeded: You've reached the maximum"
        + " modification rate per volume limit. Wait at least 6 hours between modifications per EBS volume.";
    cluster.event(cluster.claim("data"), "Warning", "VolumeResizeFailed", "resize volume \""
        + pv.getMetadata().getName() + "\" by resizer \"ebs.csi.aws.com\" failed: rpc error: code ="
        + " ResourceExhausted desc = " + refusal, "external-resizer ebs.csi.aws.com");

    Diagnosis d = diagnosePvc("data");

    assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
    assertThat(d.stage()).isEqualTo(Stage.EXPANDING_CONTROLLER);
    assertThat(d.component()).isEqualTo("csi-resizer");
    assertThat(d.where()).isEqualTo("csi-resizer in kube-system/" + CONTROLLER + " (the Lease holder)");
    assertThat(d.knownError()).isEqualTo("modify-rate");
    assertThat(d.summary()).contains("1Gi -> 2Gi");
    assertThat(d.logQuery().method()).isEqualTo("ControllerExpandVolume");
    assertThat(d.logQuery().id()).isEqualTo(VOLUME);
  }

  @Test
  void aFileSystemThatDoesNotGrowIsExpandingOnTheNode() {
    healthyVolume("data", "app");
    cluster.editClaim("data", pvc -> {
      pvc.getSpec().getResources().getRequests().put("storage", new Quantity("2Gi"));
      pvc.getStatus().setAllocatedResourceStatuses(Map.of("storage", "NodeResizeFailed"));
      return pvc;
    });
    Pod pod = cluster.client.pods().inNamespace(NS).withName("app").get();
    cluster.event(pod, "Warning", "FileSystemResizeFailed", "MountVolume.NodeExpandVolume failed for volume"
        + " \"pvc-1\" : rpc error: code = Internal desc = resize2fs /dev/nvme1n1 failed: Operation not permitted",
        "kubelet");

    Diagnosis d = diagnosePvc("data");

    assertThat(d.stage()).isEqualTo(Stage.EXPANDING_NODE);
    assertThat(d.component()).isEqualTo("node-plugin");
    assertThat(d.node()).isEqualTo(NODE);
    assertThat(d.knownError()).isEqualTo("resize-fs");
  }

  @Test
  void aModificationToAnInfeasibleClassIsModifying() {
    healthyVolume("data", "app");
    cluster.editClaim("data", pvc -> {
      pvc.getSpec().setVolumeAttributesClassName("io2-100k");
      pvc.getStatus().setModifyVolumeStatus(new io.fabric8.kubernetes.api.model.ModifyVolumeStatusBuilder()
          .withStatus("Infeasible").withTargetVolumeAttributesClassName("io2-100k").build());
      return pvc;
    });
    cluster.event(cluster.claim("data"), "Warning", "VolumeModifyFailed", "rpc error: code = InvalidArgument desc ="
        + " iops 100000 exceeds the maximum of io2", "external-resizer ebs.csi.aws.com");

    Diagnosis d = diagnosePvc("data");

    assertThat(d.stage()).isEqualTo(Stage.MODIFYING);
    assertThat(d.component()).isEqualTo("csi-resizer");
    assertThat(d.error()).contains("iops 100000");
  }

  @Test
  void aSnapshotRefusedByEc2IsSnapshottingInTheLeaseHoldersSnapshotter() {
    healthyVolume("data", "app");
    String refusal = "CreateSnapshot of " + VOLUME + ": SnapshotLimitExceeded: The maximum number of snapshots has"
        + " been reached";
    String contentError = "Failed to check and update snapshot content: failed to take snapshot of the volume "
        + VOLUME + ": \"rpc error: code = ResourceExhausted desc = " + refusal + "\"";
    cluster.snapshot("nightly", "data", Map.of("readyToUse", false,
        "boundVolumeSnapshotContentName", "snapcontent-1", "error", Map.of("message", contentError)));
    cluster.snapshotContent("snapcontent-1", "nightly", VOLUME, Map.of("readyToUse", false,
        "error", Map.of("message", contentError)));
    cluster.log(DRIVER_NS, CONTROLLER, "ebs-plugin", SINCE,
        textLine("WARN", "CreateSnapshot: volume=" + VOLUME + " duration=300ms outcome=RESOURCE_EXHAUSTED error=\""
            + refusal + "\"") + "\n");

    List<Diagnosis> all = diagnose(new Target.VolumeSnapshot(NS, "nightly"), Clock.systemUTC());

    assertThat(all).singleElement().satisfies(d -> {
      assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
      assertThat(d.stage()).isEqualTo(Stage.SNAPSHOTTING);
      assertThat(d.component()).isEqualTo("csi-snapshotter");
      assertThat(d.where()).isEqualTo("csi-snapshotter in kube-system/" + CONTROLLER + " (the Lease holder)");
      assertThat(d.knownError()).isEqualTo("snapshot-quota");
      assertThat(d.driverLog().line().method()).isEqualTo("CreateSnapshot");
      assertThat(d.driverLog().line().outcome()).isEqualTo("RESOURCE_EXHAUSTED");
    });
  }

  @Test
  void aClaimNamingAStorageClassThatDoesNotExistIsThePvControllersWithNoDriverCalled() {
    PersistentVolumeClaim pvc = cluster.claimOfNoClass("orphan", "gp9");
    cluster.event(pvc, "Warning", "ProvisioningFailed", "storageclass.storage.k8s.io \"gp9\" not found",
        "persistentvolume-controller");

    Diagnosis d = diagnosePvc("orphan");

    assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
    assertThat(d.verdict().exitCode).isEqualTo(1);
    assertThat(d.stage()).isEqualTo(Stage.PROVISIONING);
    assertThat(d.component()).isEqualTo("kube-controller-manager");
    assertThat(d.summary()).contains("StorageClass gp9 does not exist");
    assertThat(d.error()).isEqualTo("storageclass.storage.k8s.io \"gp9\" not found");
    assertThat(d.knownError()).isEqualTo(Knowledge.STORAGE_CLASS_MISSING);
    assertThat(d.meaning()).contains("gp9", "no driver was called");
    assertThat(d.action()).contains("Create the StorageClass gp9");
    assertThat(d.driverLog().line()).isNull();
    assertThat(d.driverLog().note()).contains("no driver was called");
  }

  @Test
  void aPodWithOneClaimOfNoClassAndOneHealthyGetsBothAnswers() {
    healthyVolume("data", "app");
    cluster.claimOfNoClass("orphan", "gp9");
    cluster.client.pods().inNamespace(NS).withName("app").edit(pod -> {
      pod.getSpec().getVolumes().add(new io.fabric8.kubernetes.api.model.VolumeBuilder().withName("orphan")
          .withNewPersistentVolumeClaim().withClaimName("orphan").endPersistentVolumeClaim().build());
      return pod;
    });

    List<Diagnosis> all = diagnose(new Target.Pod(NS, "app"), Clock.systemUTC());

    assertThat(all).extracting(Diagnosis::subject).anyMatch(s -> s.startsWith("pvc shop/orphan"));
    assertThat(all).filteredOn(x -> x.subject().startsWith("pvc shop/orphan")).singleElement()
        .satisfies(x -> assertThat(x.knownError()).isEqualTo(Knowledge.STORAGE_CLASS_MISSING));
    assertThat(all).filteredOn(x -> x.subject().startsWith("pvc shop/data")).singleElement()
        .satisfies(x -> assertThat(x.verdict()).isEqualTo(Verdict.HEALTHY));
  }

  @Test
  void aSnapshotNamingAMissingSnapshotClassIsTheSnapshotControllersAndNoCreateSnapshot() {
    healthyVolume("data", "app");
    GenericKubernetesResource vs = cluster.snapshotOfClass("nightly", "data", "fast-vsc");
    cluster.event(vs, "Warning", "GetSnapshotClassFailed", "Failed to get snapshot class with error"
        + " volumesnapshotclass.snapshot.storage.k8s.io \"fast-vsc\" not found", "snapshot-controller");

    Diagnosis d = diagnose(new Target.VolumeSnapshot(NS, "nightly"), Clock.systemUTC()).getFirst();

    assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
    assertThat(d.component()).isEqualTo("snapshot-controller");
    assertThat(d.summary()).contains("VolumeSnapshotClass fast-vsc does not exist");
    assertThat(d.knownError()).isEqualTo(Knowledge.SNAPSHOT_CLASS_MISSING);
    assertThat(d.meaning()).contains("no CreateSnapshot reaches the driver or EC2").doesNotContain("EC2 refused");
    assertThat(d.action()).contains("VolumeSnapshotClass");
  }

  @Test
  void aGroupSnapshotRefusedForMembersOnSeveralInstancesIsGroupSnapshottingInTheSnapshotter() {
    String refusal = "the volumes of group snapshot groupsnapshot-1 are not all attached to one instance";
    String contentError = "failed to create group snapshot content: rpc error: code = FailedPrecondition desc = "
        + refusal;
    cluster.groupSnapshot("db", Map.of("readyToUse", false, "boundVolumeGroupSnapshotContentName", "vgsc-1"));
    cluster.groupSnapshotContent("vgsc-1", "db", Map.of("readyToUse", false, "error",
        Map.of("message", contentError)));
    cluster.log(DRIVER_NS, CONTROLLER, "ebs-plugin", SINCE, textLine("WARN", "CreateVolumeGroupSnapshot: "
        + "duration=30ms outcome=FAILED_PRECONDITION error=\"" + refusal + "\"") + "\n");

    List<Diagnosis> all = diagnose(new Target.VolumeGroupSnapshot(NS, "db"), Clock.systemUTC());

    assertThat(all).singleElement().satisfies(d -> {
      assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
      assertThat(d.stage()).isEqualTo(Stage.GROUP_SNAPSHOTTING);
      assertThat(d.component()).isEqualTo("csi-snapshotter");
      assertThat(d.where()).isEqualTo("csi-snapshotter in kube-system/" + CONTROLLER + " (the Lease holder)");
      assertThat(d.error()).contains("not all attached to one instance");
    });
  }

  @Test
  void aGroupSnapshotOfAMissingClassIsTheSnapshotControllersAndAReadyOneIsHealthy() {
    cluster.groupSnapshot("db", Map.of("readyToUse", false));
    Diagnosis missing = diagnose(new Target.VolumeGroupSnapshot(NS, "db"), cluster.later(Duration.ofMinutes(10)))
        .getFirst();
    assertThat(missing.verdict()).isEqualTo(Verdict.FAILED);
    assertThat(missing.stage()).isEqualTo(Stage.GROUP_SNAPSHOTTING);
    assertThat(missing.component()).isEqualTo("snapshot-controller");
    assertThat(missing.summary()).contains("VolumeGroupSnapshotClass ebs-vgsc does not exist");

    cluster.groupSnapshot("ready", Map.of("readyToUse", true, "boundVolumeGroupSnapshotContentName", "vgsc-2"));
    cluster.groupSnapshotContent("vgsc-2", "ready", Map.of("readyToUse", true,
        "volumeGroupSnapshotHandle", "groupsnap-0123456789abcdef0"));
    Diagnosis ready = diagnose(new Target.VolumeGroupSnapshot(NS, "ready"), Clock.systemUTC()).getFirst();
    assertThat(ready.verdict()).isEqualTo(Verdict.HEALTHY);
    assertThat(ready.summary()).contains("groupsnap-0123456789abcdef0");
    assertThat(Target.parse("vgs", "shop/db")).isEqualTo(new Target.VolumeGroupSnapshot("shop", "db"));
  }

  @Test
  void aSnapshotWithoutContentIsTheSnapshotControllers() {
    healthyVolume("data", "app");
    cluster.snapshot("nightly", "data", Map.of("readyToUse", false));

    Diagnosis d = diagnose(new Target.VolumeSnapshot(NS, "nightly"), cluster.later(Duration.ofMinutes(10)))
        .getFirst();

    assertThat(d.verdict()).isEqualTo(Verdict.STUCK);
    assertThat(d.component()).isEqualTo("snapshot-controller");
  }

  // ------------------------------------------------ what no driver call caused: each message is the component's own,
  // worded as that component words it (kubernetes-csi/external-snapshotter, external-provisioner, external-resizer).

  @Test
  void aSnapshotOfAClaimNotYetBoundIsTheSnapshotControllersAndNoCreateSnapshot() {
    cluster.pendingClaim("data", GP3, "1Gi");
    String error = "Failed to create snapshot content with error failed to get input parameters to create snapshot"
        + " nightly: \"the PVC data not yet bound to a PV, will not attempt to take a snapshot yet\"";
    GenericKubernetesResource vs = cluster.snapshot("nightly", "data", Map.of("readyToUse", false,
        "error", Map.of("message", error)));
    cluster.event(vs, "Warning", "SnapshotContentCreationFailed", error, "snapshot-controller");

    Diagnosis d = diagnose(new Target.VolumeSnapshot(NS, "nightly"), Clock.systemUTC()).getFirst();

    assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
    assertThat(d.component()).isEqualTo("snapshot-controller");
    assertThat(d.summary()).contains("no VolumeSnapshotContent", "no CreateSnapshot was sent");
    assertThat(d.knownError()).isEqualTo(Knowledge.SNAPSHOT_SOURCE_NOT_BOUND);
    assertThat(d.meaning()).contains("not Bound", "no CreateSnapshot reaches the driver")
        .doesNotContain(Stage.SNAPSHOTTING.meaning);
    assertThat(d.action()).contains("diagnose pvc");
  }

  @Test
  void aSnapshotControllerFailureNoEntryKnowsIsStillNotExplainedAsACreateSnapshot() {
    healthyVolume("data", "app");
    GenericKubernetesResource vs = cluster.snapshot("nightly", "data", Map.of("readyToUse", false));
    cluster.event(vs, "Warning", "SnapshotContentCreationFailed", "Failed to create snapshot content with error"
        + " cannot find CSI PersistentVolumeSource for volume pvc-1", "snapshot-controller");

    Diagnosis d = diagnose(new Target.VolumeSnapshot(NS, "nightly"), Clock.systemUTC()).getFirst();

    assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
    assertThat(d.component()).isEqualTo("snapshot-controller");
    assertThat(d.knownError()).isEqualTo("no-driver-call");
    assertThat(d.meaning()).startsWith("snapshot-controller reported this itself, before any CreateSnapshot reached"
        + " the driver").doesNotContain("EC2 CreateSnapshot) failed");
    assertThat(d.action()).doesNotContain("the snapshotter retries");
  }

  @Test
  void aClaimNamingAVolumeAttributesClassThatDoesNotExistIsPendingWithNoModifyCall() {
    healthyVolume("data", "app");
    cluster.editClaim("data", pvc -> {
      pvc.getSpec().setVolumeAttributesClassName("gold");
      pvc.getStatus().setModifyVolumeStatus(new io.fabric8.kubernetes.api.model.ModifyVolumeStatusBuilder()
          .withStatus("Pending").withTargetVolumeAttributesClassName("gold").build());
      return pvc;
    });
    cluster.event(cluster.claim("data"), "Warning", "VolumeModifyFailed", "VAC gold does not exist.",
        "external-resizer ebs.csi.aws.com");

    Diagnosis d = diagnosePvc("data");

    assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
    assertThat(d.stage()).isEqualTo(Stage.MODIFYING);
    assertThat(d.component()).isEqualTo("csi-resizer");
    assertThat(d.summary()).contains("no ControllerModifyVolume was sent", "gold")
        .doesNotContain("ControllerModifyVolume failed");
    assertThat(d.knownError()).isEqualTo(Knowledge.VAC_MISSING);
    assertThat(d.meaning()).contains("does not exist", "no ControllerModifyVolume");
    assertThat(d.action()).contains("VolumeAttributesClass");
  }

  @Test
  void aClaimWhoseSelectedNodeIsGoneStopsBeforeCreateVolume() {
    PersistentVolumeClaim pvc = cluster.pendingClaim("data", GP3, "1Gi");
    cluster.selectNode("data", "ip-10-0-9-9.ec2.internal");
    cluster.pod("app", "data", NODE, false);
    cluster.event(pvc, "Warning", "ProvisioningFailed", "failed to get target node: node"
        + " \"ip-10-0-9-9.ec2.internal\" not found", PROVISIONER_SOURCE);

    Diagnosis d = diagnosePvc("data");

    assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
    assertThat(d.stage()).isEqualTo(Stage.PROVISIONING);
    assertThat(d.summary()).contains("stopped before CreateVolume").doesNotContain("CreateVolume failed");
    assertThat(d.knownError()).isEqualTo("selected-node-gone");
    assertThat(d.driverLog().line()).isNull();
  }

  @Test
  void aProvisionerMessageWithoutADriverAnswerAndNoCallLineIsTheProvisionersOwn() {
    PersistentVolumeClaim pvc = cluster.pendingClaim("data", GP3, "1Gi");
    cluster.selectNode("data", NODE);
    cluster.pod("app", "data", NODE, false);
    cluster.event(pvc, "Warning", "ProvisioningFailed", "failed to provision volume with StorageClass \"gp3\":"
        + " error generating accessibility requirements: no topology key found on CSINode " + NODE,
        PROVISIONER_SOURCE);
    cluster.log(DRIVER_NS, CONTROLLER, "ebs-plugin", SINCE,
        textLine("INFO", "CreateVolume: name=pvc-other duration=1501ms outcome=OK") + "\n");

    Diagnosis d = diagnosePvc("data");

    assertThat(d.stage()).isEqualTo(Stage.PROVISIONING);
    assertThat(d.component()).isEqualTo("csi-provisioner");
    assertThat(d.knownError()).isEqualTo("no-driver-call");
    assertThat(d.meaning()).startsWith("csi-provisioner reported this itself, before any CreateVolume reached the"
        + " driver");
    assertThat(d.driverLog().line()).isNull();
    assertThat(d.driverLog().note()).contains("no CreateVolume line about pvc-" + pvc.getMetadata().getUid());
  }

  @Test
  void aMessageWithoutADriverAnswerIsTheCallsWhenTheDriversLogHasTheCall() {
    PersistentVolumeClaim pvc = cluster.pendingClaim("data", GP3, "1Gi");
    cluster.selectNode("data", NODE);
    cluster.pod("app", "data", NODE, false);
    cluster.event(pvc, "Warning", "ProvisioningFailed", "failed to provision volume with StorageClass \"gp3\":"
        + " context canceled", PROVISIONER_SOURCE);
    cluster.log(DRIVER_NS, CONTROLLER, "ebs-plugin", SINCE, textLine("WARN", "CreateVolume: name=pvc-"
        + pvc.getMetadata().getUid() + " duration=60000ms outcome=CANCELLED error=\"context canceled\"") + "\n");

    Diagnosis d = diagnosePvc("data");

    assertThat(d.knownError()).isEmpty();
    assertThat(d.meaning()).isEqualTo(Stage.PROVISIONING.meaning);
    assertThat(d.driverLog().line().outcome()).isEqualTo("CANCELLED");
  }

  @Test
  void aClaimRestoringFromASnapshotThatDoesNotExistSendsNoCreateVolume() {
    cluster.client.persistentVolumeClaims().inNamespace(NS).resource(new io.fabric8.kubernetes.api.model
        .PersistentVolumeClaimBuilder().withNewMetadata().withName("copy").withNamespace(NS).endMetadata()
        .withNewSpec().withStorageClassName(GP3).withAccessModes("ReadWriteOnce").withNewResources()
        .addToRequests("storage", new Quantity("1Gi")).endResources().withNewDataSource()
        .withApiGroup("snapshot.storage.k8s.io").withKind("VolumeSnapshot").withName("gone").endDataSource()
        .endSpec().build()).create();
    cluster.selectNode("copy", NODE);

    Diagnosis d = diagnosePvc("copy");

    assertThat(d.stage()).isEqualTo(Stage.RESTORING);
    assertThat(d.verdict()).isEqualTo(Verdict.FAILED);
    assertThat(d.knownError()).isEqualTo(Knowledge.RESTORE_SOURCE_MISSING);
    assertThat(d.meaning()).contains("no CreateVolume reaches the driver");
  }

  @Test
  void aClaimRestoringFromASnapshotThatIsNotReadyIsRestoring() {
    healthyVolume("data", "app");
    cluster.snapshot("nightly", "data", Map.of("readyToUse", false, "boundVolumeSnapshotContentName", "sc-1"));
    cluster.client.persistentVolumeClaims().inNamespace(NS).resource(new io.fabric8.kubernetes.api.model
        .PersistentVolumeClaimBuilder().withNewMetadata().withName("copy").withNamespace(NS).endMetadata()
        .withNewSpec().withStorageClassName(GP3).withAccessModes("ReadWriteOnce").withNewResources()
        .addToRequests("storage", new Quantity("1Gi")).endResources().withNewDataSource()
        .withApiGroup("snapshot.storage.k8s.io").withKind("VolumeSnapshot").withName("nightly").endDataSource()
        .endSpec().build()).create();
    cluster.selectNode("copy", NODE);

    Diagnosis d = diagnosePvc("copy", cluster.later(Duration.ofMinutes(10)));

    assertThat(d.stage()).isEqualTo(Stage.RESTORING);
    assertThat(d.verdict()).isEqualTo(Verdict.STUCK);
    assertThat(d.summary()).contains("VolumeSnapshot nightly");
  }

  @Test
  void aPodTheSchedulerCannotPlaceBecauseOfTheVolumeZoneIsScheduling() {
    cluster.storageClass("now", Map.of("type", "gp3"), "Immediate");
    cluster.pendingClaim("data", "now", "1Gi");
    cluster.bind("data", VOLUME);
    Pod pod = cluster.pod("app", "data", null, false);
    cluster.event(pod, "Warning", "FailedScheduling", "0/3 nodes are available: 3 node(s) had volume node affinity"
        + " conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        "default-scheduler");

    Diagnosis d = diagnosePvc("data");

    assertThat(d.stage()).isEqualTo(Stage.SCHEDULING);
    assertThat(d.component()).isEqualTo("kube-scheduler");
    assertThat(d.knownError()).isEqualTo("zone-conflict");
    assertThat(d.logQuery()).isNull();
  }

  @Test
  void aClassAllowedOnlyWhereNoNodeIsNamedWhenTheSchedulerFindsNoNode() {
    cluster.storageClass("nowhere", Map.of("type", "gp3"), "WaitForFirstConsumer");
    cluster.client.storage().v1().storageClasses().withName("nowhere").edit(sc -> {
      sc.setAllowedTopologies(List.of(new io.fabric8.kubernetes.api.model.TopologySelectorTermBuilder()
          .addNewMatchLabelExpression().withKey("topology.kubernetes.io/zone").withValues("us-east-1f")
          .endMatchLabelExpression().build()));
      return sc;
    });
    cluster.pendingClaim("data", "nowhere", "1Gi");
    Pod pod = cluster.pod("app", "data", null, false);
    cluster.event(pod, "Warning", "FailedScheduling", "0/3 nodes are available: 3 node(s) didn't find available"
        + " persistent volumes to bind. preemption: 0/3 nodes are available: 3 Preemption is not helpful for"
        + " scheduling.", "default-scheduler");

    Diagnosis d = diagnosePvc("data");

    assertThat(d.stage()).isEqualTo(Stage.SCHEDULING);
    assertThat(d.component()).isEqualTo("kube-scheduler");
    assertThat(d.summary()).contains("StorageClass nowhere allows only the topology topology.kubernetes.io/zone in"
        + " [us-east-1f]");
  }

  @Test
  void aDetachThatFailsIsDetachingInTheAttacher() {
    cluster.storageClass("now", Map.of("type", "gp3"), "Immediate");
    cluster.pendingClaim("data", "now", "1Gi");
    PersistentVolume pv = cluster.bind("data", VOLUME);
    var va = cluster.attachment(pv, NODE, true, null);
    cluster.client.storage().v1().volumeAttachments().withName(va.getMetadata().getName()).edit(a -> {
      a.getStatus().setDetachError(new io.fabric8.kubernetes.api.model.storage.VolumeErrorBuilder()
          .withMessage("rpc error: code = Internal desc = DetachVolume of " + VOLUME + ": InternalError").build());
      return a;
    });

    Diagnosis d = diagnosePvc("data");

    assertThat(d.stage()).isEqualTo(Stage.DETACHING);
    assertThat(d.component()).isEqualTo("csi-attacher");
    assertThat(d.logQuery().method()).isEqualTo("ControllerUnpublishVolume");
  }

  @Test
  void aVolumeStillMountedOnANodeWithoutItsPodIsDetachingOnTheNode() {
    cluster.storageClass("now", Map.of("type", "gp3"), "Immediate");
    cluster.pendingClaim("data", "now", "1Gi");
    PersistentVolume pv = cluster.bind("data", VOLUME);
    cluster.attachment(pv, NODE, true, null);
    cluster.volumesInUse(NODE, VOLUME);

    Diagnosis d = diagnosePvc("data");

    assertThat(d.stage()).isEqualTo(Stage.DETACHING);
    assertThat(d.component()).isEqualTo("node-plugin");
    assertThat(d.summary()).contains("still reports the volume in use");
  }

  @Test
  void aReleasedPvWhoseDeleteFailsIsDeleting() {
    cluster.storageClass("now", Map.of("type", "gp3"), "Immediate");
    cluster.pendingClaim("data", "now", "1Gi");
    PersistentVolume pv = cluster.bind("data", VOLUME);
    cluster.client.persistentVolumeClaims().inNamespace(NS).withName("data").delete();
    cluster.client.persistentVolumes().withName(pv.getMetadata().getName()).edit(p -> {
      p.getStatus().setPhase("Released");
      return p;
    });
    cluster.event(cluster.client.persistentVolumes().withName(pv.getMetadata().getName()).get(), "Warning",
        "VolumeFailedDelete", "rpc error: code = FailedPrecondition desc = DeleteVolume of " + VOLUME
            + ": VolumeInUse: Volume " + VOLUME + " is currently attached to " + INSTANCE, PROVISIONER_SOURCE);

    List<Diagnosis> all = diagnose(new Target.Pv(pv.getMetadata().getName()), Clock.systemUTC());

    assertThat(all).singleElement().satisfies(d -> {
      assertThat(d.stage()).isEqualTo(Stage.DELETING);
      assertThat(d.component()).isEqualTo("csi-provisioner");
      assertThat(d.knownError()).isEqualTo("volume-in-use");
      assertThat(d.logQuery().method()).isEqualTo("DeleteVolume");
    });
  }

  @Test
  void aPodTargetDiagnosesEveryClaimItMounts() {
    healthyVolume("data", "app");
    cluster.storageClass("fast", Map.of("type", "gp3", "iops", "lots"), "Immediate");
    PersistentVolumeClaim bad = cluster.pendingClaim("scratch", "fast", "1Gi");
    cluster.event(bad, "Warning", "ProvisioningFailed", "rpc error: code = InvalidArgument desc = iops: StorageClass"
        + " parameter iops must be a positive whole number, got \"lots\"", PROVISIONER_SOURCE);
    cluster.client.pods().inNamespace(NS).resource(new io.fabric8.kubernetes.api.model.PodBuilder()
        .withNewMetadata().withName("two").withNamespace(NS).endMetadata().withNewSpec().withNodeName(NODE)
        .addNewContainer().withName("app").withImage("busybox").endContainer()
        .addNewVolume().withName("a").withNewPersistentVolumeClaim().withClaimName("data").endPersistentVolumeClaim()
        .endVolume().addNewVolume().withName("b").withNewPersistentVolumeClaim().withClaimName("scratch")
        .endPersistentVolumeClaim().endVolume().endSpec().build()).create();

    List<Diagnosis> all = diagnose(new Target.Pod(NS, "two"), Clock.systemUTC());

    assertThat(all).extracting(Diagnosis::subject).containsExactly("pvc shop/data (used by pod two)",
        "pvc shop/scratch (used by pod two)");
    assertThat(all.get(1).stage()).isEqualTo(Stage.PROVISIONING);
    assertThat(Report.exitCode(all)).isEqualTo(1);
  }

  @Test
  void aVolumeOfAnotherDriverCannotBeTold() {
    cluster.storageClass("local", Map.of(), "WaitForFirstConsumer");
    cluster.client.storage().v1().storageClasses().withName("local").edit(sc -> {
      sc.setProvisioner("kubernetes.io/no-provisioner");
      return sc;
    });
    cluster.pendingClaim("other", "local", "1Gi");
    cluster.editClaim("other", pvc -> {
      pvc.getMetadata().getAnnotations().clear();
      return pvc;
    });

    List<Diagnosis> all = diagnose(new Target.Pvc(NS, "other"), Clock.systemUTC());

    assertThat(all).singleElement().satisfies(d -> {
      assertThat(d.verdict()).isEqualTo(Verdict.UNKNOWN);
      assertThat(d.summary()).contains("kubernetes.io/no-provisioner", "not a volume of ebs.csi.aws.com");
    });
    assertThat(Report.exitCode(all)).isEqualTo(2);
  }

  @Test
  void aMissingTargetCannotBeTold() {
    List<Diagnosis> all = diagnose(new Target.Pvc(NS, "nothing"), Clock.systemUTC());

    assertThat(all).singleElement().satisfies(d -> {
      assertThat(d.verdict()).isEqualTo(Verdict.UNKNOWN);
      assertThat(d.summary()).isEqualTo("PVC shop/nothing not found");
    });
    assertThat(Report.exitCode(all)).isEqualTo(2);
  }

  @Test
  void whatTheUserMayNotReadIsAGapAndTheRestIsStillDiagnosed() {
    healthyVolume("data", "app");
    cluster.api.server().expect().get().withPath("/apis/storage.k8s.io/v1/volumeattachments")
        .andReturn(403, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":403,"
            + "\"reason\":\"Forbidden\",\"message\":\"volumeattachments.storage.k8s.io is forbidden\"}").always();

    Diagnosis d = diagnosePvc("data");

    assertThat(d.gaps()).singleElement().asString().contains("cannot read volumeattachments: forbidden",
        "diagnose.clusterRole");
    assertThat(d.evidence()).anyMatch(l -> l.startsWith("PVC shop/data: Bound"));
  }
}
