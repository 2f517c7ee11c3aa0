package io.awscsi.e2e.adversarial;

import static io.awscsi.e2e.adversarial.ControllerSupport.GIB;
import static io.awscsi.e2e.adversarial.ControllerSupport.createVolume;
import static io.awscsi.e2e.adversarial.ControllerSupport.efsVolume;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CapacityRange;
import csi.v1.ControllerGetVolumeRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.ListVolumesRequest;
import io.awscsi.e2e.adversarial.ControllerSupport.Timed;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.awscsi.e2e.adversarial.DriverFixture.Mode;
import io.grpc.Status;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 12 item 10, over the EBS and EFS controller sockets with an AWS API frozen by the realism layer (calls held
 * without an answer): every call answers DEADLINE_EXCEEDED itself, before the caller's deadline, naming the AWS call
 * that did not answer, and uses the caller's whole deadline rather than a fixed bound of its own. The old code gave
 * EBS a fixed 30 s for batched lookups and EFS no bound at all (no answer within 90 s).
 */
@Tag("integration")
class ControllerDeadlineTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  private static DriverProcess ebs;
  private static DriverProcess efs;

  @BeforeAll
  static void start() {
    ebs = FX.start(Driver.EBS, Mode.CONTROLLER);
    efs = FX.start(Driver.EFS, Mode.CONTROLLER);
  }

  /** The driver's own answer: DEADLINE_EXCEEDED naming {@code api}, in time (the caller's timer names no API). */
  private static void answeredInTime(Timed t, Duration deadline, String api) {
    assertThat(t.status().getCode()).as(t.status().toString()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(t.status().getDescription()).as("the driver's answer names the AWS call").contains(api);
    assertThat(t.took()).as("answered before the caller's deadline").isLessThan(deadline);
  }

  /** ControllerGetVolume, ListVolumes with EC2 DescribeVolumes frozen, deadline 8 s -> DEADLINE_EXCEEDED < 8 s. */
  @Test
  void ebsLookupsAndListingsAnswerBeforeTheDeadlineNamingDescribeVolumes() {
    String id = CsiAssert.ok(() -> ebs.controller().createVolume(createVolume("pvc-frozen-get")
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB)).build())).getVolume().getVolumeId();
    Duration deadline = Duration.ofSeconds(8);
    try (var frozen = FX.aws().proxy().freeze("ec2", "DescribeVolumes")) {
      Timed get = ControllerSupport.timed(ebs, deadline, c -> c.controllerGetVolume(ControllerGetVolumeRequest
          .newBuilder().setVolumeId(id).build()));
      Timed list = ControllerSupport.timed(ebs, deadline, c -> c.listVolumes(ListVolumesRequest.getDefaultInstance()));

      answeredInTime(get, deadline, "DescribeVolumes");
      answeredInTime(list, deadline, "DescribeVolumes");
      assertThat(list.took()).as("the listing used its time, not the caller's whole deadline")
          .isGreaterThan(Duration.ofSeconds(5));
      assertThat(frozen.hits()).isPositive();
    }
  }

  /** CreateVolume with EC2 CreateVolume frozen, deadline 8 s -> DEADLINE_EXCEEDED naming CreateVolume. */
  @Test
  void ebsCreateVolumeAnswersBeforeTheDeadlineNamingCreateVolume() {
    Duration deadline = Duration.ofSeconds(8);
    try (var frozen = FX.aws().proxy().freeze("ec2", "CreateVolume")) {
      Timed create = ControllerSupport.timed(ebs, deadline, c -> c.createVolume(createVolume("pvc-frozen-create")
          .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB)).build()));

      answeredInTime(create, deadline, "CreateVolume");
    }
  }

  /** A 40 s deadline with DescribeVolumes frozen -> answered after more than the old fixed 30 s, before 40 s. */
  @Test
  void ebsUsesTheCallersWholeDeadlineNotAFixedThirtySeconds() {
    String id = CsiAssert.ok(() -> ebs.controller().createVolume(createVolume("pvc-frozen-long")
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB)).build())).getVolume().getVolumeId();
    Duration deadline = Duration.ofSeconds(40);
    try (var frozen = FX.aws().proxy().freeze("ec2", "DescribeVolumes")) {
      Timed get = ControllerSupport.timed(ebs, deadline, c -> c.controllerGetVolume(ControllerGetVolumeRequest
          .newBuilder().setVolumeId(id).build()));

      answeredInTime(get, deadline, "DescribeVolumes");
      assertThat(get.took()).isGreaterThan(Duration.ofSeconds(33));
    }
  }

  /** EFS API frozen: CreateVolume, two at once, and DeleteVolume with 8 s -> DEADLINE_EXCEEDED naming the API. */
  @Test
  void efsCallsAnswerBeforeTheDeadlineWithTheEfsApiFrozen() throws Exception {
    Map<String, String> parameters = Map.of("provisioningMode", "efs-ap", "fileSystemId", FX.aws().fileSystemId(),
        "directoryPerms", "700");
    String existing = CsiAssert.ok(() -> efs.controller().createVolume(efsVolume("pvc-efs-before")
        .putAllParameters(parameters).build())).getVolume().getVolumeId();
    Duration deadline = Duration.ofSeconds(8);
    try (var frozen = FX.aws().proxy().freeze("efs", "*");
         ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Timed> first = pool.submit(() -> ControllerSupport.timed(efs, deadline, c -> c.createVolume(
          efsVolume("pvc-efs-frozen-1").putAllParameters(parameters).build())));
      Future<Timed> second = pool.submit(() -> ControllerSupport.timed(efs, deadline, c -> c.createVolume(
          efsVolume("pvc-efs-frozen-2").putAllParameters(parameters).build())));
      Timed delete = ControllerSupport.timed(efs, deadline, c -> c.deleteVolume(DeleteVolumeRequest.newBuilder()
          .setVolumeId(existing).build()));

      answeredInTime(first.get(), deadline, "DescribeAccessPoints");
      answeredInTime(second.get(), deadline, "DescribeAccessPoints");
      answeredInTime(delete, deadline, "DeleteAccessPoint");
    }
    CsiAssert.ok(() -> efs.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(existing)
        .build()));
  }
}
