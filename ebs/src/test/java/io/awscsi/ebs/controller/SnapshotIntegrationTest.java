package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.GIB;
import static io.awscsi.ebs.controller.Requests.assertError;
import static io.awscsi.ebs.controller.Requests.volume;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.Snapshot;
import io.awscsi.core.provider.SnapshotManager;
import io.awscsi.core.provider.SnapshotQuery;
import io.awscsi.core.provider.SnapshotRequest;
import io.awscsi.realism.AwsError;
import io.awscsi.realism.Fault;
import io.awscsi.realism.RealismProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** CreateSnapshot, DeleteSnapshot and ListSnapshots against moto behind the EC2 realism layer. */
@Tag("integration")
class SnapshotIntegrationTest {

  private static Ec2Environment env;
  private EbsControllerProvider provider;
  private SnapshotManager snapshots;

  @BeforeAll
  static void startEc2() {
    env = Ec2Environment.start(RealismProfile.fast());
  }

  @AfterAll
  static void stopEc2() {
    env.close();
  }

  @BeforeEach
  void fresh() {
    env.reset();
    provider = env.provider(Ec2Environment.testOptions().withExtraTags(Map.of("env", "test")),
        new MetricsRegistry());
    snapshots = provider.snapshots().orElseThrow();
  }

  private String newVolume(String name) {
    return provider.provisioner().createVolume(volume(name, 2, Map.of())).volumeId();
  }

  private Snapshot awaitReady(String snapshotId) throws InterruptedException {
    for (int i = 0; i < 100; i++) {
      List<Snapshot> found = snapshots.listSnapshots(new SnapshotQuery(snapshotId, "", 0, "")).entries();
      if (!found.isEmpty() && found.getFirst().readyToUse()) {
        return found.getFirst();
      }
      Thread.sleep(100);
    }
    throw new AssertionError(snapshotId + " never became ready");
  }

  @Test
  void createsATaggedSnapshotThatBecomesReadyAndIsIdempotentByName() throws Exception {
    String vol = newVolume("pvc-s");
    Snapshot first = snapshots.createSnapshot(new SnapshotRequest(vol, "snapcontent-1", Map.of(
        "tagSpecification_1", "backup={{ .VolumeSnapshotNamespace }}", "csi.storage.k8s.io/volumesnapshot/namespace",
        "shop"), Map.of()));
    assertThat(first.snapshotId()).startsWith("snap-");
    assertThat(first.sourceVolumeId()).isEqualTo(vol);
    assertThat(first.sizeBytes()).isEqualTo(2 * GIB);
    assertThat(first.readyToUse()).isFalse();
    Snapshot again = snapshots.createSnapshot(new SnapshotRequest(vol, "snapcontent-1", Map.of(), Map.of()));
    assertThat(again.snapshotId()).isEqualTo(first.snapshotId());
    assertThat(env.proxy.stats().calls("ec2", "CreateSnapshot")).isEqualTo(1);
    assertThat(awaitReady(first.snapshotId()).readyToUse()).isTrue();

    Map<String, String> tags = env.ec2.describeSnapshots(r -> r.snapshotIds(first.snapshotId())).snapshots()
        .getFirst().tags().stream().collect(Collectors.toMap(t -> t.key(), t -> t.value()));
    assertThat(tags).containsEntry("CSIVolumeSnapshotName", "snapcontent-1").containsEntry("backup", "shop")
        .containsEntry("env", "test").containsEntry("ebs.csi.aws.com/cluster", "true")
        .containsEntry("kubernetes.io/created-for/volumesnapshot/namespace", "shop");
  }

  @Test
  void theSameNameForAnotherVolumeIsAlreadyExistsAndAMissingSourceIsNotFound() {
    String a = newVolume("pvc-sa");
    String b = newVolume("pvc-sb");
    snapshots.createSnapshot(new SnapshotRequest(a, "snap-x", Map.of(), Map.of()));
    assertError(() -> snapshots.createSnapshot(new SnapshotRequest(b, "snap-x", Map.of(), Map.of())),
        DriverError.AlreadyExists.class, a);
    long describes = env.proxy.stats().calls("ec2", "DescribeVolumes");
    assertError(() -> snapshots.createSnapshot(new SnapshotRequest("vol-0123456789abcdef0", "snap-y", Map.of(),
        Map.of())), DriverError.NotFound.class, "vol-0123456789abcdef0");
    // EC2's answer to CreateSnapshot says the source is missing: no Describe of it first.
    assertThat(env.proxy.stats().calls("ec2", "DescribeVolumes")).isEqualTo(describes);
    assertError(() -> snapshots.createSnapshot(new SnapshotRequest(a, "snap-z", Map.of("color", "red"), Map.of())),
        DriverError.InvalidArgument.class, "color");
    assertError(() -> snapshots.createSnapshot(new SnapshotRequest(a, "snap-z", Map.of("lockDuration", "3"),
        Map.of())), DriverError.InvalidArgument.class, "lockMode");
  }

  @Test
  void deleteIsIdempotent() {
    String vol = newVolume("pvc-d");
    Snapshot s = snapshots.createSnapshot(new SnapshotRequest(vol, "snap-del", Map.of(), Map.of()));
    snapshots.deleteSnapshot(s.snapshotId(), Map.of());
    snapshots.deleteSnapshot(s.snapshotId(), Map.of());
    snapshots.deleteSnapshot("snap-0123456789abcdef0", Map.of());
    assertThat(snapshots.listSnapshots(new SnapshotQuery(s.snapshotId(), "", 0, "")).entries()).isEmpty();
  }

  @Test
  void listsByIdBySourceAndAllWithPaging() {
    String a = newVolume("pvc-la");
    String b = newVolume("pvc-lb");
    List<String> ofA = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ofA.add(snapshots.createSnapshot(new SnapshotRequest(a, "snap-a" + i, Map.of(), Map.of())).snapshotId());
    }
    String ofB = snapshots.createSnapshot(new SnapshotRequest(b, "snap-b", Map.of(), Map.of())).snapshotId();

    assertThat(snapshots.listSnapshots(new SnapshotQuery(ofB, "", 0, "")).entries())
        .extracting(Snapshot::snapshotId).containsExactly(ofB);
    assertThat(snapshots.listSnapshots(new SnapshotQuery(ofB, a, 0, "")).entries()).isEmpty();
    assertThat(snapshots.listSnapshots(new SnapshotQuery("snap-0123456789abcdef0", "", 0, "")).entries()).isEmpty();
    assertThat(snapshots.listSnapshots(new SnapshotQuery("", a, 0, "")).entries())
        .extracting(Snapshot::snapshotId).containsExactlyInAnyOrderElementsOf(ofA);

    List<String> all = new ArrayList<>();
    String token = "";
    int pages = 0;
    do {
      var page = snapshots.listSnapshots(new SnapshotQuery("", "", 2, token));
      assertThat(page.entries().size()).isLessThanOrEqualTo(2);
      page.entries().forEach(s -> all.add(s.snapshotId()));
      token = page.nextToken();
      pages++;
    } while (!token.isEmpty() && pages < 10);
    assertThat(all).containsExactlyInAnyOrder(ofA.get(0), ofA.get(1), ofA.get(2), ofB);
    assertThat(pages).isEqualTo(2);
    assertError(() -> snapshots.listSnapshots(new SnapshotQuery("", "", 2, "bogus-token")),
        DriverError.Aborted.class);
  }

  @Test
  void aFailedFastSnapshotRestoreDeletesTheSnapshotAndFails() {
    String vol = newVolume("pvc-fsr");
    try (var fault = env.proxy.injectFault(Fault.ec2("EnableFastSnapshotRestores", AwsError.badRequest(
        "InvalidParameterValue", "fast snapshot restore is not available")))) {
      assertError(() -> snapshots.createSnapshot(new SnapshotRequest(vol, "snap-fsr", Map.of(
          "fastSnapshotRestoreAvailabilityZones", "us-east-1a"), Map.of())), DriverError.InvalidArgument.class,
          "fast snapshot restore", "deleted");
    }
    assertThat(env.proxy.stats().calls("ec2", "DeleteSnapshot")).isEqualTo(1);
    assertThat(env.ec2.describeSnapshots(r -> r.ownerIds("self")).snapshots()).isEmpty();
    assertError(() -> snapshots.createSnapshot(new SnapshotRequest(vol, "snap-fsr2", Map.of(
        "fastSnapshotRestoreAvailabilityZones", "mars-1a"), Map.of())), DriverError.InvalidArgument.class, "mars-1a");
  }

  @Test
  void aFailedLockDeletesTheSnapshotAndFails() {
    String vol = newVolume("pvc-lock");
    try (var fault = env.proxy.injectFault(Fault.ec2("LockSnapshot", AwsError.badRequest(
        "InvalidParameterCombination", "lock duration not allowed")))) {
      assertError(() -> snapshots.createSnapshot(new SnapshotRequest(vol, "snap-lock", Map.of("lockMode",
          "governance", "lockDuration", "1"), Map.of())), DriverError.InvalidArgument.class, "lock", "deleted");
    }
    assertThat(env.ec2.describeSnapshots(r -> r.ownerIds("self")).snapshots()).isEmpty();
  }
}
