package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.GIB;
import static io.awscsi.ebs.controller.Requests.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.ExpandRequest;
import io.awscsi.core.provider.ModifyRequest;
import io.awscsi.core.provider.SnapshotRequest;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.ebs.cloud.Disk;
import io.awscsi.ebs.cloud.SnapshotLock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a StorageClass, VolumeAttributesClass or VolumeSnapshotClass key does to the EC2 request, through the
 * in-memory EC2: the effect tests docs/parameter-effects.json names for keys no other test showed reaching EC2.
 */
class ParameterEffectsTest {

  private final InMemoryController controller = new InMemoryController();
  /** Each volume and snapshot its own name: the same name with other parameters is ALREADY_EXISTS. */
  private int names;

  private Disk create(int gib, Map<String, String> parameters) {
    return disk(controller.create("pvc-e" + ++names, gib, parameters).volumeId());
  }

  private Disk disk(String volumeId) {
    return controller.cloud.peek(volumeId).orElseThrow();
  }

  private void modify(String volumeId, Map<String, String> parameters) {
    controller.provider.modifier().orElseThrow().modify(new ModifyRequest(volumeId, parameters, Map.of()));
  }

  private String snapshot(Map<String, String> parameters) {
    String vol = controller.volume("pvc-s" + ++names, 1);
    return controller.provider.snapshots().orElseThrow()
        .createSnapshot(new SnapshotRequest(vol, "snap-e" + names, parameters, Map.of())).snapshotId();
  }

  // ---- StorageClass

  @Test
  void typeIsTheVolumeTypeEc2IsAskedFor() {
    assertThat(create(10, Map.of("type", "io2", "iops", "1000")).volumeType()).isEqualTo("io2");
    assertThat(controller.cloud.peek(controller.volume("pvc-d", 10)).orElseThrow().volumeType()).isEqualTo("gp3");
  }

  @Test
  void iopsAndThroughputAreWhatEc2IsAskedFor() {
    Disk disk = create(10, Map.of("iops", "4000", "throughput", "250"));
    assertThat(disk.iops()).isEqualTo(4000);
    assertThat(disk.throughput()).isEqualTo(250);
  }

  @Test
  void iopsPerGbTimesTheSizeIsTheIopsEc2IsAskedFor() {
    assertThat(create(100, Map.of("type", "io1", "iopsPerGB", "10")).iops()).isEqualTo(1000);
  }

  @Test
  void allowAutoIopsPerGbIncreaseRaisesTooFewIopsToTheTypesMinimum() {
    assertError(() -> create(5, Map.of("type", "io1", "iopsPerGB", "10")), DriverError.InvalidArgument.class,
        "iopsPerGB", "allowAutoIOPSPerGBIncrease");
    assertThat(create(5, Map.of("type", "io1", "iopsPerGB", "10", "allowAutoIOPSPerGBIncrease", "true")).iops())
        .isEqualTo(100);
  }

  @Test
  void allowAutoIopsIncreaseOnModifyKeepsTheIopsPerGbWhenTheVolumeGrows() {
    String kept = controller.create("pvc-k", 100, Map.of("type", "io1", "iopsPerGB", "10",
        "allowAutoIOPSIncreaseOnModify", "true")).volumeId();
    String fixed = controller.create("pvc-f", 100, Map.of("type", "io1", "iopsPerGB", "10")).volumeId();

    expand(kept, 200);
    expand(fixed, 200);
    assertThat(disk(kept).iops()).isEqualTo(2000);
    assertThat(disk(fixed).iops()).isEqualTo(1000);
  }

  private void expand(String volumeId, int gib) {
    controller.provider.expander().orElseThrow().expand(new ExpandRequest(volumeId, new CapacityRange(gib * GIB, 0),
        Requests.MOUNT, Map.of()));
  }

  @Test
  void encryptedAndKmsKeyIdAreWhatEc2IsAskedFor() {
    assertThat(create(1, Map.of()).encrypted()).isFalse();
    assertThat(create(1, Map.of("encrypted", "true")).encrypted()).isTrue();
    Disk withKey = controller.cloud.peek(controller.create("pvc-key", 1, Map.of("kmsKeyId",
        "arn:aws:kms:us-east-1:111122223333:key/k-1")).volumeId()).orElseThrow();
    assertThat(withKey.encrypted()).isTrue();
    assertThat(withKey.kmsKeyId()).isEqualTo("arn:aws:kms:us-east-1:111122223333:key/k-1");
  }

  @Test
  void theProvisionersObjectNamesBecomeCreatedForTagsAndFillTagTemplates() {
    Disk disk = create(1, Map.of("csi.storage.k8s.io/pvc/name", "data", "csi.storage.k8s.io/pvc/namespace", "shop",
        "csi.storage.k8s.io/pv/name", "pvc-e", "tagSpecification_1", "owner={{ .PVCNamespace }}/{{ .PVCName }}",
        "tagSpecification_2", "pv={{ .PVName }}"));
    assertThat(disk.tags()).containsEntry("kubernetes.io/created-for/pvc/name", "data")
        .containsEntry("kubernetes.io/created-for/pvc/namespace", "shop")
        .containsEntry("kubernetes.io/created-for/pv/name", "pvc-e")
        .containsEntry("owner", "shop/data").containsEntry("pv", "pvc-e");
  }

  @Test
  void deprecatedFstypeAndBlockExpressAreAcceptedAndChangeNothing() {
    Disk plain = create(1, Map.of());
    Disk deprecated = disk(controller.create("pvc-dep", 1, Map.of("fstype", "xfs", "blockExpress", "true"))
        .volumeId());
    assertThat(deprecated.volumeType()).isEqualTo(plain.volumeType());
    assertThat(deprecated.iops()).isEqualTo(plain.iops());
    assertThat(VolumeParameters.parse(Map.of("fstype", "xfs", "blockExpress", "true"), Map.of(),
        List.of(Requests.MOUNT)).volumeContext()).isEmpty();
  }

  // ---- VolumeAttributesClass at CreateVolume

  @Test
  void aVolumeAttributesClassAtCreateWinsOverTheStorageClassInTheEc2Request() {
    VolumeRequest request = new VolumeRequest("pvc-vac", new CapacityRange(10 * GIB, 0), List.of(Requests.MOUNT),
        Map.of("type", "gp3", "iops", "3000", "throughput", "125"),
        Map.of("iops", "5000", "throughput", "300", "tagSpecification_1", "tier=gold"), Map.of(),
        new VolumeSource.Empty(), Requests.inZone(Ec2Environment.ZONE));
    Disk disk = disk(controller.provider.provisioner().createVolume(request).volumeId());
    assertThat(disk.iops()).isEqualTo(5000);
    assertThat(disk.throughput()).isEqualTo(300);
    assertThat(disk.tags()).containsEntry("tier", "gold");
  }

  @Test
  void aVolumeAttributesClassTypeAtCreateIsTheVolumeTypeAndVolumeTypeOnlyWithoutIt() {
    VolumeRequest deprecated = new VolumeRequest("pvc-vt", new CapacityRange(200 * GIB, 0), List.of(Requests.MOUNT),
        Map.of(), Map.of("volumeType", "st1"), Map.of(), new VolumeSource.Empty(),
        Requests.inZone(Ec2Environment.ZONE));
    assertThat(disk(controller.provider.provisioner().createVolume(deprecated).volumeId()).volumeType())
        .isEqualTo("st1");
    VolumeRequest both = new VolumeRequest("pvc-vt2", new CapacityRange(200 * GIB, 0), List.of(Requests.MOUNT),
        Map.of(), Map.of("volumeType", "st1", "type", "sc1"), Map.of(), new VolumeSource.Empty(),
        Requests.inZone(Ec2Environment.ZONE));
    assertThat(disk(controller.provider.provisioner().createVolume(both).volumeId()).volumeType()).isEqualTo("sc1");
  }

  // ---- VolumeAttributesClass at ControllerModifyVolume

  @Test
  void modifyVolumeTypeIsTheTypeEc2ModifiesTo() {
    String vol = controller.volume("pvc-m", 200);
    modify(vol, Map.of("volumeType", "st1"));
    assertThat(disk(vol).volumeType()).isEqualTo("st1");
  }

  @Test
  void modifyIopsPerGbTimesTheSizeIsTheIopsEc2ModifiesTo() {
    String vol = controller.create("pvc-m", 100, Map.of("type", "io1", "iops", "500")).volumeId();
    modify(vol, Map.of("iopsPerGB", "20"));
    assertThat(disk(vol).iops()).isEqualTo(2000);
  }

  @Test
  void modifyAllowAutoIopsIncreaseOnModifyTurnsTheRatioKeepingOnAndOff() {
    String vol = controller.create("pvc-m", 100, Map.of("type", "io1", "iopsPerGB", "10")).volumeId();
    modify(vol, Map.of("allowAutoIOPSIncreaseOnModify", "true"));
    expand(vol, 200);
    assertThat(disk(vol).iops()).isEqualTo(2000);

    modify(vol, Map.of("allowAutoIOPSIncreaseOnModify", "false"));
    expand(vol, 300);
    assertThat(disk(vol).iops()).isEqualTo(2000);
  }

  @Test
  void modifyFillsTagTemplatesFromTheResizersObjectNames() {
    String vol = controller.volume("pvc-m", 1);
    modify(vol, Map.of("csi.storage.k8s.io/pvc/name", "data", "csi.storage.k8s.io/pvc/namespace", "shop",
        "csi.storage.k8s.io/pv/name", "pvc-m", "tagSpecification_1", "owner={{ .PVCNamespace }}/{{ .PVCName }}",
        "tagSpecification_2", "pv={{ .PVName }}"));
    assertThat(disk(vol).tags()).containsEntry("owner", "shop/data").containsEntry("pv", "pvc-m");
  }

  // ---- VolumeSnapshotClass

  @Test
  void fastSnapshotRestoreZonesAreTheZonesEc2EnablesItIn() {
    String snap = snapshot(Map.of("fastSnapshotRestoreAvailabilityZones", "us-east-1a, us-east-1b"));
    assertThat(controller.cloud.fastRestoreZones(snap)).containsExactly("us-east-1a", "us-east-1b");
  }

  @Test
  void aGovernanceLockWithADurationIsWhatEc2LocksTheSnapshotWith() {
    String snap = snapshot(Map.of("lockMode", "Governance", "lockDuration", "7"));
    assertThat(controller.cloud.lock(snap)).isEqualTo(new SnapshotLock("governance", 7, null, 0));
  }

  @Test
  void aComplianceLockWithAnExpirationDateAndCoolOffIsWhatEc2LocksTheSnapshotWith() {
    String snap = snapshot(Map.of("lockMode", "compliance", "lockExpirationDate", "2030-01-02T15:04:05Z",
        "lockCoolOffPeriod", "24"));
    assertThat(controller.cloud.lock(snap))
        .isEqualTo(new SnapshotLock("compliance", 0, Instant.parse("2030-01-02T15:04:05Z"), 24));
  }

  @Test
  void outpostArnIsWhereEc2IsAskedToStoreTheSnapshot() {
    String arn = "arn:aws:outposts:us-east-1:111122223333:outpost/op-0123456789abcdef0";
    assertThat(controller.cloud.outpostArn(snapshot(Map.of("outpostArn", arn)))).isEqualTo(arn);
    assertThat(controller.cloud.outpostArn(snapshot(Map.of()))).isEmpty();
  }

  @Test
  void theSnapshottersObjectNamesBecomeCreatedForTagsAndFillTagTemplates() {
    String snap = snapshot(Map.of("csi.storage.k8s.io/volumesnapshot/name", "daily",
        "csi.storage.k8s.io/volumesnapshot/namespace", "shop",
        "csi.storage.k8s.io/volumesnapshotcontent/name", "snapcontent-1",
        "tagSpecification_1", "from={{ .VolumeSnapshotNamespace }}/{{ .VolumeSnapshotName }}",
        "tagSpecification_2", "content={{ .VolumeSnapshotContentName }}"));
    assertThat(controller.cloud.peekSnapshot(snap).orElseThrow().tags())
        .containsEntry("kubernetes.io/created-for/volumesnapshot/name", "daily")
        .containsEntry("kubernetes.io/created-for/volumesnapshot/namespace", "shop")
        .containsEntry("kubernetes.io/created-for/volumesnapshotcontent/name", "snapcontent-1")
        .containsEntry("from", "shop/daily").containsEntry("content", "snapcontent-1");
  }
}
