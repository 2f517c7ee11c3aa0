package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.storage.VolumeAttributesClassBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Volume;

/**
 * A VolumeAttributesClass that raises a gp3 volume's iops and throughput: csi-resizer calls ControllerModifyVolume,
 * the volume in EC2 has the new figures, the claim reports the class as current, and the pod keeps running.
 */
class VolumeAttributesClassTest extends ClusterCase {

  @Test
  void volumeAttributesClassChangesIopsAndThroughput() {
    // Before 1.34 (the oldest EKS minor, 1.32, runs here with `make test-cluster-1.32`) the class is served as
    // storage.k8s.io/v1beta1 only, as EKS enables it. The upstream sidecars built here (csi-provisioner v6.4.0,
    // csi-resizer v2.3.0) use the v1 API alone and switch the feature off when discovery lacks it (their logs:
    // "Disabling VolumeAttributesClass feature gate because the VolumeAttributesClass v1 API is not available"); on
    // EKS 1.31-1.33 AWS's patched sidecar images fall back to v1beta1 (the chart's ENABLE_VAC_FALLBACK), these do not.
    assumeTrue(cluster.serves("storage.k8s.io/v1", "VolumeAttributesClass"), "the API server ("
        + cluster.serverVersion() + ") serves VolumeAttributesClass as storage.k8s.io/v1beta1 at most, and the upstream"
        + " sidecars built here (csi-provisioner v6.4.0, csi-resizer v2.3.0) modify volumes through storage.k8s.io/v1"
        + " only: they turn the feature off on this minor (AWS's sidecar images fall back to v1beta1, these do not)");
    Steps steps = new Steps("vac modify");
    String vac = cluster.namespace + "-fast";
    PersistentVolume pv = steps.step("gp3 volume in use (3000 iops, 125 MiB/s)", () -> {
      cluster.createPvc("data", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
      cluster.startSleeper("app", "data");
      return cluster.awaitBound("data");
    });
    String volumeId = pv.getSpec().getCsi().getVolumeHandle();
    try (Ec2Client ec2 = ClusterFixture.target().ec2()) {
      Volume before = ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst();
      assertThat(before.iops()).isEqualTo(3000);
      steps.step("VolumeAttributesClass iops 4000, throughput 250 set on the PVC", () -> {
        cluster.createClusterScoped(new VolumeAttributesClassBuilder().withNewMetadata().withName(vac).endMetadata()
            .withDriverName("ebs.csi.aws.com").withParameters(Map.of("iops", "4000", "throughput", "250")).build());
        cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).withName("data")
            .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"volumeAttributesClassName\":\"" + vac + "\"}}");
      });
      steps.step("ControllerModifyVolume: the claim's current class is the new one", () -> Eventually.await(
          "currentVolumeAttributesClassName " + vac, Duration.ofMinutes(3), () -> {
            var status = cluster.pvc("data").getStatus();
            return vac.equals(status.getCurrentVolumeAttributesClassName()) && status.getModifyVolumeStatus() == null;
          }));
      Volume after = steps.step("EC2 volume has 4000 iops and 250 MiB/s", () -> {
        Eventually.await("EC2 volume modified", Duration.ofMinutes(2), () -> {
          Volume v = ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst();
          return v.iops() == 4000 && v.throughput() == 250;
        });
        return ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst();
      });
      assertThat(after.volumeTypeAsString()).isEqualTo("gp3");
    }
    steps.step("the pod kept running", () -> {
      assertThat(cluster.restarts("app")).isZero();
    });
    steps.summary();
  }
}
