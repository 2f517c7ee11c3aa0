package io.awscsi.e2e.adversarial;

import static io.awscsi.e2e.adversarial.ControllerSupport.GIB;
import static io.awscsi.e2e.adversarial.ControllerSupport.createVolume;
import static io.awscsi.e2e.adversarial.ControllerSupport.efsVolume;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CapacityRange;
import csi.v1.ControllerExpandVolumeRequest;
import csi.v1.ControllerModifyVolumeRequest;
import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateVolumeResponse;
import csi.v1.ListSnapshotsRequest;
import csi.v1.VolumeContentSource;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.awscsi.e2e.adversarial.DriverFixture.Mode;
import io.grpc.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 12 item 1, over the EBS and EFS controller sockets: bytes become GiB exactly, and a size above what the
 * volume type allows is OUT_OF_RANGE naming the field, at CreateVolume, ControllerExpandVolume, ControllerModifyVolume
 * and restore, with no volume made. The old code answered required_bytes 2^63-1 with a 1 GiB volume.
 */
@Tag("integration")
class ControllerSizeArithmeticTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  private static DriverProcess ebs;
  private static DriverProcess efs;

  @BeforeAll
  static void start() {
    ebs = FX.start(Driver.EBS, Mode.CONTROLLER);
    efs = FX.start(Driver.EFS, Mode.CONTROLLER);
  }

  private static CapacityRange range(long required, long limit) {
    return CapacityRange.newBuilder().setRequiredBytes(required).setLimitBytes(limit).build();
  }

  /** CreateVolume {required, limit} (gp3) -> OUT_OF_RANGE naming the field; EC2 CreateVolume never called. */
  @ParameterizedTest(name = "CreateVolume required_bytes={0} limit_bytes={1} -> OUT_OF_RANGE naming {2}")
  @CsvSource({
      "9223372036854775807, 0, capacity_range.required_bytes",
      "9223372035781033985, 0, capacity_range.required_bytes",
      "9223372035781033984, 0, capacity_range.required_bytes",
      "70368744177665, 0, capacity_range.required_bytes",
      "1073741825, 2147483647, limit_bytes",
      "0, 1073741823, capacity_range.limit_bytes",
      "2147483648, 1073741824, limit_bytes",
      "9223372036854775807, 9223372036854775807, capacity_range.required_bytes"})
  void createVolumeAboveTheMaximumOrWithoutAWholeGibIsOutOfRange(long required, long limit, String field) {
    String name = "pvc-size-" + Long.toHexString(required ^ limit);
    long creates = FX.aws().stats().calls("ec2", "CreateVolume");

    CsiAssert.refused(Status.Code.OUT_OF_RANGE, field, () -> ebs.controller().createVolume(createVolume(name)
        .setCapacityRange(range(required, limit)).build()));

    assertThat(FX.aws().stats().calls("ec2", "CreateVolume")).as("no EC2 CreateVolume").isEqualTo(creates);
    assertThat(ControllerSupport.volumesNamed(FX, name)).isEmpty();
  }

  /** CreateVolume with negative bytes -> INVALID_ARGUMENT naming the field. */
  @ParameterizedTest(name = "CreateVolume required_bytes={0} limit_bytes={1} -> INVALID_ARGUMENT naming {2}")
  @CsvSource({"-1, 0, capacity_range.required_bytes", "0, -9223372036854775808, capacity_range.limit_bytes",
      "-9223372036854775808, -1, capacity_range.required_bytes"})
  void negativeBytesAreInvalidArgumentNamingTheField(long required, long limit, String field) {
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, field, () -> ebs.controller().createVolume(
        createVolume("pvc-negative").setCapacityRange(range(required, limit)).build()));
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, field, () -> efs.controller().createVolume(
        efsVolume("pvc-negative").putAllParameters(efsParameters()).setCapacityRange(range(required, limit))
            .build()));
  }

  /** CreateVolume at exact GiB boundaries -> OK with whole GiB inside the range. */
  @ParameterizedTest(name = "CreateVolume required_bytes={0} limit_bytes={1} -> OK, {2} GiB")
  @CsvSource({"1, 0, 1", "1073741824, 1073741824, 1", "1073741825, 2147483648, 2", "0, 3221225471, 2"})
  void exactGibBoundariesGiveWholeGibInsideTheRange(long required, long limit, long gib) {
    CreateVolumeResponse r = CsiAssert.ok(() -> ebs.controller().createVolume(
        createVolume("pvc-edge-" + required + "-" + limit).setCapacityRange(range(required, limit)).build()));

    assertThat(r.getVolume().getCapacityBytes()).isEqualTo(gib * GIB);
  }

  /** ControllerExpandVolume of a 1 GiB volume to 2^63-1 (and to 64 TiB + 1) -> OUT_OF_RANGE; to less -> OK. */
  @Test
  void expandAboveTheMaximumIsOutOfRangeAndBelowTheSizeIsOk() {
    String id = CsiAssert.ok(() -> ebs.controller().createVolume(createVolume("pvc-expand")
        .setCapacityRange(range(GIB, 0)).build())).getVolume().getVolumeId();
    long modifies = FX.aws().stats().calls("ec2", "ModifyVolume");

    for (long huge : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - GIB + 2, 65_537 * GIB}) {
      CsiAssert.refused(Status.Code.OUT_OF_RANGE, "capacity_range.required_bytes", () -> ebs.controller()
          .controllerExpandVolume(ControllerExpandVolumeRequest.newBuilder().setVolumeId(id)
              .setCapacityRange(range(huge, 0)).build()));
    }
    CsiAssert.refused(Status.Code.OUT_OF_RANGE, "limit_bytes", () -> ebs.controller().controllerExpandVolume(
        ControllerExpandVolumeRequest.newBuilder().setVolumeId(id).setCapacityRange(range(0, GIB - 1)).build()));
    long answered = CsiAssert.ok(() -> ebs.controller().controllerExpandVolume(ControllerExpandVolumeRequest
        .newBuilder().setVolumeId(id).setCapacityRange(range(1, 0)).build())).getCapacityBytes();

    assertThat(answered).as("already larger than the target: OK with its size").isEqualTo(GIB);
    assertThat(FX.aws().stats().calls("ec2", "ModifyVolume")).isEqualTo(modifies);
  }

  /** ControllerModifyVolume of a 1 GiB gp3 to type io1 (4 GiB and more) -> OUT_OF_RANGE naming type. */
  @Test
  void modifyToATypeTheSizeDoesNotFitIsOutOfRange() {
    String id = CsiAssert.ok(() -> ebs.controller().createVolume(createVolume("pvc-modify")
        .setCapacityRange(range(GIB, 0)).build())).getVolume().getVolumeId();

    CsiAssert.refused(Status.Code.OUT_OF_RANGE, "type", () -> ebs.controller().controllerModifyVolume(
        ControllerModifyVolumeRequest.newBuilder().setVolumeId(id).putMutableParams("type", "io1").build()));
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "iops", () -> ebs.controller().controllerModifyVolume(
        ControllerModifyVolumeRequest.newBuilder().setVolumeId(id).putMutableParams("iops", "9223372036854775807")
            .build()));
  }

  /** CreateVolume from a 2 GiB snapshot asking 1 GiB, or at most 1 GiB, or 2^63-1 -> OUT_OF_RANGE. */
  @Test
  void restoreSmallerThanTheSnapshotOrAboveTheMaximumIsOutOfRange() throws InterruptedException {
    String source = CsiAssert.ok(() -> ebs.controller().createVolume(createVolume("pvc-restore-src")
        .setCapacityRange(range(2 * GIB, 0)).build())).getVolume().getVolumeId();
    String snapshot = CsiAssert.ok(() -> ebs.controller().createSnapshot(CreateSnapshotRequest.newBuilder()
        .setName("snap-restore").setSourceVolumeId(source).build())).getSnapshot().getSnapshotId();
    awaitReady(snapshot);
    VolumeContentSource from = VolumeContentSource.newBuilder().setSnapshot(VolumeContentSource.SnapshotSource
        .newBuilder().setSnapshotId(snapshot)).build();

    CsiAssert.refused(Status.Code.OUT_OF_RANGE, "snapshot", () -> ebs.controller().createVolume(
        createVolume("pvc-restore-1").setVolumeContentSource(from).setCapacityRange(range(GIB, 0)).build()));
    CsiAssert.refused(Status.Code.OUT_OF_RANGE, "snapshot", () -> ebs.controller().createVolume(
        createVolume("pvc-restore-2").setVolumeContentSource(from).setCapacityRange(range(0, GIB)).build()));
    CsiAssert.refused(Status.Code.OUT_OF_RANGE, "capacity_range.required_bytes", () -> ebs.controller()
        .createVolume(createVolume("pvc-restore-3").setVolumeContentSource(from)
            .setCapacityRange(range(Long.MAX_VALUE, 0)).build()));
    long restored = CsiAssert.ok(() -> ebs.controller().createVolume(createVolume("pvc-restore-4")
        .setVolumeContentSource(from).build())).getVolume().getCapacityBytes();

    assertThat(restored).as("no capacity: the snapshot's size").isEqualTo(2 * GIB);
    assertThat(ControllerSupport.volumesNamed(FX, "pvc-restore-1")).isEmpty();
  }

  /**
   * EFS: capacity is recorded, not enforced. CreateVolume with 2^63-1 -> OK reporting it; limit below required ->
   * OUT_OF_RANGE; the same name with a range the recorded capacity does not fit -> ALREADY_EXISTS.
   */
  @Test
  void efsRecordsTheCapacityAndRefusesRangesThatDoNotFit() {
    CreateVolumeResponse huge = CsiAssert.ok(() -> efs.controller().createVolume(efsVolume("pvc-efs-huge")
        .putAllParameters(efsParameters()).setCapacityRange(range(Long.MAX_VALUE, 0)).build()));
    assertThat(huge.getVolume().getCapacityBytes()).isEqualTo(Long.MAX_VALUE);

    CsiAssert.refused(Status.Code.OUT_OF_RANGE, "capacity_range", () -> efs.controller().createVolume(
        efsVolume("pvc-efs-range").putAllParameters(efsParameters()).setCapacityRange(range(2 * GIB, GIB))
            .build()));
    CsiAssert.ok(() -> efs.controller().createVolume(efsVolume("pvc-efs-5").putAllParameters(efsParameters())
        .setCapacityRange(range(5 * GIB, 0)).build()));
    CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(efsVolume("pvc-efs-5")
        .putAllParameters(efsParameters()).setCapacityRange(range(6 * GIB, 0)).build()));
    CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(efsVolume("pvc-efs-5")
        .putAllParameters(efsParameters()).setCapacityRange(range(0, 4 * GIB)).build()));
    assertThat(CsiAssert.ok(() -> efs.controller().createVolume(efsVolume("pvc-efs-5")
        .putAllParameters(efsParameters()).setCapacityRange(range(GIB, 5 * GIB)).build())).getVolume()
        .getCapacityBytes()).as("a range the recorded 5 GiB fits: the same volume").isEqualTo(5 * GIB);
  }

  private static Map<String, String> efsParameters() {
    return Map.of("provisioningMode", "efs-ap", "fileSystemId", FX.aws().fileSystemId(), "directoryPerms", "700");
  }

  private static void awaitReady(String snapshotId) throws InterruptedException {
    Instant until = Instant.now().plus(Duration.ofSeconds(60));
    while (Instant.now().isBefore(until)) {
      var entries = ebs.controller().listSnapshots(ListSnapshotsRequest.newBuilder().setSnapshotId(snapshotId)
          .build()).getEntriesList();
      if (!entries.isEmpty() && entries.getFirst().getSnapshot().getReadyToUse()) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("snapshot " + snapshotId + " was not ready within 60 s");
  }
}
