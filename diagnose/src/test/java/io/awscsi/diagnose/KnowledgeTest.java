package io.awscsi.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.diagnose.Knowledge.Actor;
import io.awscsi.diagnose.Knowledge.KnownError;
import io.awscsi.diagnose.Knowledge.Stage;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class KnowledgeTest {

  /**
   * The Lease names as the sidecar versions the charts run build them (csi-provisioner v6.4.0: the driver name with
   * "/" replaced; csi-attacher v4.13.0: "external-attacher-leader-" + driver; csi-resizer v2.3.0:
   * "external-resizer-" + driver; csi-snapshotter v8.7.0: "external-snapshotter-leader-" + driver; all sanitised by
   * csi-lib-utils: every character outside [a-zA-Z0-9-] becomes "-").
   */
  @Test
  void leaseNamesAreTheSidecarsOwn() {
    assertThat(Actor.PROVISIONER.leaseName(Driver.EBS)).isEqualTo("ebs-csi-aws-com");
    assertThat(Actor.ATTACHER.leaseName(Driver.EBS)).isEqualTo("external-attacher-leader-ebs-csi-aws-com");
    assertThat(Actor.RESIZER.leaseName(Driver.EBS)).isEqualTo("external-resizer-ebs-csi-aws-com");
    assertThat(Actor.SNAPSHOTTER.leaseName(Driver.EBS)).isEqualTo("external-snapshotter-leader-ebs-csi-aws-com");
    assertThat(Actor.PROVISIONER.leaseName(Driver.EFS)).isEqualTo("efs-csi-aws-com");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "PROVISIONING | rpc error: code = ResourceExhausted desc = CreateVolume: VolumeLimitExceeded: gp3 limit | ec2-quota",
      "PROVISIONING | rpc error: code = InvalidArgument desc = unknown StorageClass parameter \"iopz\" | bad-parameter",
      "PROVISIONING | rpc error: code = PermissionDenied desc = UnauthorizedOperation: not authorized | iam-denied",
      "ATTACHING | rpc error: code = Unavailable desc = volume vol-1 was stuck in attaching to i-1 | attach-stuck",
      "ATTACHING | rpc error: code = DeadlineExceeded desc = context deadline exceeded | attach-timeout",
      "ATTACHING | CSINode ip-1 does not contain driver ebs.csi.aws.com | driver-not-registered",
      "STAGING | kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name ebs.csi.aws.com not found in the list of registered CSI drivers | driver-not-registered",
      "STAGING | rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial unix /var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock: connect: connection refused\" | node-plugin-unreachable",
      "ATTACHING | Multi-Attach error for volume \"pvc-1\" Volume is already exclusively attached to one node | multi-attach",
      "ATTACHING | rpc error: code = ResourceExhausted desc = AttachmentLimitExceeded: max attachments | attach-limit",
      "PROVISIONING | rpc error: code = ResourceExhausted desc = CreateVolume pvc-1: file system fs-1 has reached its access-point quota (AccessPointLimitExceeded) | efs-access-points",
      "PUBLISHING | rpc error: code = Internal desc = mount.efs fs-1:/ failed: Failed to resolve \"fs-1.efs.us-east-1.amazonaws.com\" | efs-mount",
      "SCHEDULING | 0/3 nodes are available: 3 node(s) had volume node affinity conflict. | zone-conflict",
      "STAGING | rpc error: code = Internal desc = mkfs.ext4 failed: invalid block size - 3000 | mkfs",
      "EXPANDING_CONTROLLER | VolumeModificationRateExceeded: wait 6 hours | modify-rate",
      "EXPANDING_NODE | rpc error: code = Internal desc = resize2fs /dev/nvme1n1 failed | resize-fs",
      "SNAPSHOTTING | CreateSnapshot: SnapshotLimitExceeded: too many | snapshot-quota",
      "DELETING | rpc error: code = FailedPrecondition desc = VolumeInUse: vol-1 is attached | volume-in-use",
      "DELETING | rpc error: code = Unavailable desc = RequestLimitExceeded: Request limit exceeded. | throttled",
      "ATTACHING | rpc error: code = Aborted desc = an operation for vol-1 is already in progress | in-flight",
      "SNAPSHOTTING | Failed to create snapshot content with error failed to get input parameters to create snapshot s1: \"the PVC data not yet bound to a PV, will not attempt to take a snapshot yet\" | snapshot-source-not-bound",
      "SNAPSHOTTING | Failed to create snapshot content with error failed to get input parameters to create snapshot s1: failed to retrieve PVC data from the API server: \"persistentvolumeclaim \\\"data\\\" not found\" | snapshot-source-missing",
      "RESTORING | error getting handle for DataSource Type VolumeSnapshot by Name s1: error getting snapshot s1 from api server: volumesnapshots.snapshot.storage.k8s.io \"s1\" not found | restore-source-missing",
      "PROVISIONING | failed to get target node: node \"ip-1\" not found | selected-node-gone",
      "MODIFYING | VAC gold does not exist. | vac-missing"})
  void aKnownMessageIsExplained(Stage stage, String message, String id) {
    Optional<KnownError> known = Knowledge.explain(stage, message);

    assertThat(known).map(KnownError::id).contains(id);
  }

  @Test
  void aDriversAnswerIsToldFromAComponentsOwnMessage() {
    assertThat(Knowledge.carriesDriverReply("failed to provision volume with StorageClass \"gp3\": rpc error: code ="
        + " Internal desc = boom")).isTrue();
    assertThat(Knowledge.carriesDriverReply("failed to provision volume with StorageClass \"gp3\": error generating"
        + " accessibility requirements: no topology key found on CSINode ip-1")).isFalse();
    assertThat(Knowledge.carriesDriverReply("Failed to create snapshot content with error cannot find CSI"
        + " PersistentVolumeSource for volume pvc-1")).isFalse();
  }

  @Test
  void aMessageOfAnotherStageIsNotExplainedByAStageBoundError() {
    assertThat(Knowledge.explain(Stage.PROVISIONING, "mkfs.ext4 failed")).isEmpty();
    assertThat(Knowledge.explain(Stage.STAGING, "")).isEmpty();
  }

  @Test
  void everyStageNamesItsComponentAndCall() {
    for (Stage s : Stage.values()) {
      assertThat(s.actor.container(Driver.EBS)).isNotBlank();
      assertThat(s.actor.commandTemplates(Driver.EBS)).isNotEmpty().allMatch(c -> c.startsWith("kubectl"));
      assertThat(s.meaning).isNotBlank();
      assertThat(s.action).isNotBlank();
      if (s.actor.isSidecar() || s.actor == Actor.NODE_PLUGIN) {
        assertThat(s.csiMethod).as(s.title).isNotNull();
      }
    }
  }
}
