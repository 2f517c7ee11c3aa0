package io.awscsi.e2e.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;
import software.amazon.awssdk.services.efs.EfsClient;
import software.amazon.awssdk.services.efs.model.AccessPointNotFoundException;

/**
 * What a case leaves behind: the PVs of its claims (and the PVs it made itself), their VolumeAttachments, the EC2
 * volumes and snapshots and the EFS access points behind them, and on the local cluster their loop devices and
 * mounts. Recorded before the namespace is deleted; {@link #verify()} waits (bounded) until every one is gone and
 * fails naming what is left.
 */
final class Teardown {

  static final ResourceDefinitionContext VOLUME_SNAPSHOT = new ResourceDefinitionContext.Builder()
      .withGroup("snapshot.storage.k8s.io").withVersion("v1").withKind("VolumeSnapshot")
      .withPlural("volumesnapshots").withNamespaced(true).build();
  static final ResourceDefinitionContext VOLUME_SNAPSHOT_CONTENT = new ResourceDefinitionContext.Builder()
      .withGroup("snapshot.storage.k8s.io").withVersion("v1").withKind("VolumeSnapshotContent")
      .withPlural("volumesnapshotcontents").withNamespaced(false).build();
  private static final Duration GONE = Duration.ofMinutes(3);

  /** A PV and its CSI volume handle; {@code deleted} when the backing volume must go with it (reclaim Delete). */
  record Volume(String pv, String driver, String handle, boolean deleted) {}

  private final ClusterFixture fixture;
  private final Map<String, Volume> volumes = new LinkedHashMap<>();
  private final List<String> snapshots = new ArrayList<>();

  Teardown(ClusterFixture fixture) {
    this.fixture = fixture;
  }

  void recordVolumes() {
    try {
      for (PersistentVolumeClaim pvc : fixture.client.persistentVolumeClaims().inNamespace(fixture.namespace).list()
          .getItems()) {
        String pv = pvc.getSpec().getVolumeName();
        if (pv != null && !pv.isEmpty()) {
          record(fixture.client.persistentVolumes().withName(pv).get());
        }
      }
      for (GenericKubernetesResource snap : fixture.client.genericKubernetesResources(VOLUME_SNAPSHOT)
          .inNamespace(fixture.namespace).list().getItems()) {
        if (snap.getAdditionalProperties().get("status") instanceof Map<?, ?> status
            && status.get("boundVolumeSnapshotContentName") instanceof String content) {
          var c = fixture.client.genericKubernetesResources(VOLUME_SNAPSHOT_CONTENT).withName(content).get();
          if (c != null && c.getAdditionalProperties().get("status") instanceof Map<?, ?> cs
              && cs.get("snapshotHandle") instanceof String handle) {
            snapshots.add(handle);
          }
        }
      }
    } catch (RuntimeException e) {
      // The snapshot API may be absent (EKS without the CRDs); the PVs are recorded already.
      if (volumes.isEmpty()) {
        throw e;
      }
    }
  }

  /** Records a PV the case made itself (a static PV). */
  void record(PersistentVolume pv) {
    if (pv == null || pv.getSpec().getCsi() == null) {
      return;
    }
    volumes.put(pv.getMetadata().getName(), new Volume(pv.getMetadata().getName(), pv.getSpec().getCsi().getDriver(),
        pv.getSpec().getCsi().getVolumeHandle(), "Delete".equals(pv.getSpec().getPersistentVolumeReclaimPolicy())));
  }

  void verify() {
    if (volumes.isEmpty() && snapshots.isEmpty()) {
      return;
    }
    Steps steps = new Steps("teardown " + fixture.namespace);
    steps.step("no PV left of " + volumes.size(), () -> Eventually.await("PVs " + volumes.keySet() + " deleted", GONE,
        () -> volumes.keySet().stream().allMatch(pv -> fixture.client.persistentVolumes().withName(pv).get() == null)));
    steps.step("no VolumeAttachment left", () -> Eventually.await("no VolumeAttachment of " + volumes.keySet(), GONE,
        () -> fixture.client.storage().v1().volumeAttachments().list().getItems().stream()
            .noneMatch(va -> volumes.containsKey(va.getSpec().getSource().getPersistentVolumeName()))));
    List<String> ebs = volumes.values().stream().filter(v -> v.deleted() && "ebs.csi.aws.com".equals(v.driver()))
        .map(Volume::handle).toList();
    List<String> accessPoints = volumes.values().stream()
        .filter(v -> v.deleted() && "efs.csi.aws.com".equals(v.driver()) && v.handle().contains("::fsap-"))
        .map(v -> v.handle().substring(v.handle().indexOf("::") + 2)).toList();
    try (Ec2Client ec2 = ClusterFixture.target().ec2(); EfsClient efs = ClusterFixture.target().efs()) {
      if (!ebs.isEmpty()) {
        steps.step("no EC2 volume left of " + ebs.size(), () -> Eventually.await("EC2 volumes " + ebs + " deleted",
            GONE, () -> ebs.stream().allMatch(id -> volumeGone(ec2, id))));
      }
      if (!snapshots.isEmpty()) {
        steps.step("no EC2 snapshot left of " + snapshots.size(), () -> Eventually.await("EC2 snapshots " + snapshots
            + " deleted", GONE, () -> snapshots.stream().allMatch(id -> snapshotGone(ec2, id))));
      }
      if (!accessPoints.isEmpty()) {
        steps.step("no access point left of " + accessPoints.size(), () -> Eventually.await("access points "
            + accessPoints + " deleted", GONE, () -> accessPoints.stream().allMatch(id -> accessPointGone(efs, id))));
      }
    }
    if (fixture.local()) {
      LocalCluster local = fixture.localCluster();
      steps.step("no loop device left", () -> Eventually.await("no loop device over " + ebs, GONE,
          () -> loopDevices(local.loopDirectory()).stream().noneMatch(back -> ebs.stream().anyMatch(back::contains))));
      steps.step("no mount left", () -> Eventually.await("no mount of " + volumes.keySet() + " under "
          + local.stateDirectory(), GONE, () -> mountsOf(local.stateDirectory()).stream()
          .noneMatch(m -> volumes.keySet().stream().anyMatch(m::contains) || ebs.stream().anyMatch(m::contains))));
    }
    steps.summary();
  }

  static boolean volumeGone(Ec2Client ec2, String id) {
    try {
      return ec2.describeVolumes(r -> r.volumeIds(id)).volumes().stream()
          .allMatch(v -> Objects.equals(v.stateAsString(), "deleted"));
    } catch (Ec2Exception e) {
      if ("InvalidVolume.NotFound".equals(e.awsErrorDetails().errorCode())) {
        return true;
      }
      throw e;
    }
  }

  static boolean snapshotGone(Ec2Client ec2, String id) {
    try {
      return ec2.describeSnapshots(r -> r.snapshotIds(id)).snapshots().isEmpty();
    } catch (Ec2Exception e) {
      if ("InvalidSnapshot.NotFound".equals(e.awsErrorDetails().errorCode())) {
        return true;
      }
      throw e;
    }
  }

  static boolean accessPointGone(EfsClient efs, String id) {
    try {
      return efs.describeAccessPoints(r -> r.accessPointId(id)).accessPoints().isEmpty();
    } catch (AccessPointNotFoundException e) {
      return true;
    }
  }

  /** Backing files of the loop devices whose backing file is under {@code dir}. */
  static List<String> loopDevices(Path dir) {
    try {
      Process p = new ProcessBuilder("losetup", "-l", "-n", "-O", "BACK-FILE").start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor();
      return out.lines().map(String::trim).filter(l -> l.startsWith(dir.toString())).toList();
    } catch (IOException e) {
      throw new IllegalStateException("losetup: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Mount points below {@code dir}. */
  static List<String> mountsOf(Path dir) {
    try {
      String prefix = dir.toString() + "/";
      return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().map(l -> l.split(" ")[4])
          .filter(m -> m.startsWith(prefix)).toList();
    } catch (IOException e) {
      throw new IllegalStateException("mountinfo: " + e.getMessage(), e);
    }
  }
}
