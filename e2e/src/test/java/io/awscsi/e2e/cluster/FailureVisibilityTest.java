package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a user sees when something fails: a bad StorageClass parameter gives a ProvisioningFailed event on the claim
 * with the driver's message naming the parameter; an attach that EC2 refuses shows the driver's message in the
 * VolumeAttachment's attachError, and the attach succeeds once EC2 accepts it again.
 */
class FailureVisibilityTest extends ClusterCase {

  @AfterEach
  void clearFaults() {
    if (cluster.local()) {
      cluster.localCluster().clearFaults();
    }
  }

  @Test
  void badStorageClassParameterIsNamedInTheProvisioningFailedEvent() {
    Steps steps = new Steps("bad parameter");
    String sc = cluster.storageClass("bad-iops", Map.of("type", "gp3", "iops", "lots"), "Immediate");
    String message = steps.step("PVC of a class with iops \"lots\": ProvisioningFailed event", () -> {
      cluster.createPvc("bad", sc, "1Gi", "ReadWriteOnce");
      Eventually.await("ProvisioningFailed event", Duration.ofMinutes(2), () -> cluster.eventsOf(
          "PersistentVolumeClaim", "bad").stream().anyMatch(e -> "ProvisioningFailed".equals(e.getReason())));
      return cluster.eventsOf("PersistentVolumeClaim", "bad").stream()
          .filter(e -> "ProvisioningFailed".equals(e.getReason())).findFirst().orElseThrow().getMessage();
    });
    assertThat(message).contains("InvalidArgument").contains("iops").contains("\"lots\"");
    steps.step("the claim stays Pending, no PV", () -> {
      assertThat(cluster.pvc("bad").getStatus().getPhase()).isEqualTo("Pending");
      assertThat(cluster.pvc("bad").getSpec().getVolumeName()).isNullOrEmpty();
    });
    steps.summary();
  }

  @Test
  void attachRefusedByEc2ShowsTheDriversMessageInTheVolumeAttachment() {
    assumeTrue(cluster.local(), "needs the realism layer in front of emulated EC2 to refuse an attach (local"
        + " cluster only)");
    Steps steps = new Steps("attach refused");
    String sc = cluster.storageClass("immediate", Map.of("type", "gp3"), "Immediate");
    String volumeId = steps.step("volume provisioned (Immediate binding)", () -> {
      cluster.createPvc("data", sc, "1Gi", "ReadWriteOnce");
      return cluster.awaitBound("data").getSpec().getCsi().getVolumeHandle();
    });
    String refusal = "You are not authorized to perform this operation (cluster-suite fault " + volumeId + ")";
    cluster.localCluster().injectFault("ec2", "AttachVolume", Map.of("VolumeId", volumeId), "UnauthorizedOperation",
        refusal);
    String node = cluster.schedulableNodes().getFirst().getMetadata().getName();
    String pv = cluster.pvc("data").getSpec().getVolumeName();
    VolumeAttachment va = steps.step("pod created: the VolumeAttachment's attachError has the driver's message",
        () -> {
          cluster.createPod("app", "data", "sleep 86400", node);
          Eventually.await("attachError on the VolumeAttachment of " + pv, Duration.ofMinutes(3),
              () -> cluster.attachment(pv, node).map(a -> a.getStatus() != null
                  && a.getStatus().getAttachError() != null).orElse(false));
          return cluster.attachment(pv, node).orElseThrow();
        });
    String error = va.getStatus().getAttachError().getMessage();
    System.out.println("[attach refused] attachError: " + error);
    assertThat(error).contains("UnauthorizedOperation").contains(refusal);
    assertThat(va.getStatus().getAttached()).isFalse();
    steps.step("the pod reports FailedAttachVolume", () -> Eventually.await("FailedAttachVolume event",
        Duration.ofMinutes(2), () -> cluster.eventsOf("Pod", "app").stream()
            .anyMatch(e -> "FailedAttachVolume".equals(e.getReason()))));
    steps.step("EC2 accepts again: attached, pod ready", () -> {
      cluster.localCluster().clearFaults();
      cluster.awaitAttached(pv, node);
      cluster.awaitReady("app");
    });
    steps.summary();
  }
}
