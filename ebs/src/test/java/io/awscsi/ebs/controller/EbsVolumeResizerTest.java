package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.GIB;
import static io.awscsi.ebs.controller.Requests.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.core.errors.DriverError;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.ExpandRequest;
import io.awscsi.core.provider.ExpandResult;
import io.awscsi.core.provider.ModifyRequest;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.ebs.cloud.Disk;
import io.awscsi.ebs.cloud.Ec2Action;
import io.awscsi.ebs.cloud.InMemoryEbsCloud;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** ControllerExpandVolume and ControllerModifyVolume through the in-memory EC2. */
class EbsVolumeResizerTest {

  private final InMemoryController controller = new InMemoryController();
  private final InMemoryEbsCloud cloud = controller.cloud;

  private ExpandResult expand(String volumeId, int gib, VolumeCapability capability) {
    return controller.provider.expander().orElseThrow().expand(new ExpandRequest(volumeId,
        new CapacityRange(gib * GIB, 0), capability, Map.of()));
  }

  private void modify(String volumeId, Map<String, String> parameters) {
    controller.provider.modifier().orElseThrow().modify(new ModifyRequest(volumeId, parameters, Map.of()));
  }

  static Stream<Arguments> expansions() {
    return Stream.of(
        Arguments.of("a file system grows on the node too", Requests.MOUNT, 20, 20, true, 1),
        Arguments.of("a block volume needs nothing on the node", Requests.BLOCK, 20, 20, false, 1),
        Arguments.of("the current size changes nothing", Requests.MOUNT, 10, 10, true, 0),
        Arguments.of("less than the current size changes nothing", Requests.MOUNT, 5, 10, true, 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("expansions")
  void expandGrowsTheVolumeOnlyWhenAsked(String why, VolumeCapability capability, int gib, int expectedGiB,
      boolean nodeExpansion, int modifyCalls) {
    String vol = controller.volume("pvc-x", 10);

    ExpandResult result = expand(vol, gib, capability);
    assertThat(result.capacityBytes()).isEqualTo(expectedGiB * GIB);
    assertThat(result.nodeExpansionRequired()).isEqualTo(nodeExpansion);
    assertThat(cloud.peek(vol).orElseThrow().sizeGiB()).isEqualTo(expectedGiB);
    assertThat(cloud.count(Ec2Action.MODIFY_VOLUME)).isEqualTo(modifyCalls);
  }

  @Test
  void anUnknownVolumeIsNotFoundAndBeyondTheTypesMaximumIsOutOfRange() {
    assertError(() -> expand("vol-0000", 20, Requests.MOUNT), DriverError.NotFound.class, "vol-0000");
    String vol = controller.volume("pvc-big", 10);
    assertError(() -> expand(vol, 70_000, Requests.MOUNT), DriverError.OutOfRange.class);
  }

  @Test
  void modifyChangesAttributesAndTagOnlyChangesTouchTagsOnly() {
    String vol = controller.volume("pvc-m", 10);

    modify(vol, Map.of("iops", "4000", "throughput", "250"));
    Disk disk = cloud.peek(vol).orElseThrow();
    assertThat(disk.iops()).isEqualTo(4000);
    assertThat(disk.throughput()).isEqualTo(250);
    assertThat(cloud.count(Ec2Action.MODIFY_VOLUME)).isEqualTo(1);

    modify(vol, Map.of("tagSpecification_1", "team=storage"));
    assertThat(cloud.peek(vol).orElseThrow().tags()).containsEntry("team", "storage");
    assertThat(cloud.count(Ec2Action.MODIFY_VOLUME)).isEqualTo(1);
    assertThat(cloud.count(Ec2Action.CREATE_TAGS)).isEqualTo(1);
  }

  @Test
  void invalidMutableParametersAreInvalidArgumentNamingThem() {
    String vol = controller.volume("pvc-bad", 10);

    assertError(() -> modify(vol, Map.of("colour", "blue")), DriverError.InvalidArgument.class, "colour");
    assertError(() -> modify(vol, Map.of("iops", "many")), DriverError.InvalidArgument.class, "iops");
    assertThat(cloud.count(Ec2Action.MODIFY_VOLUME)).isZero();
  }

  static Stream<Arguments> modificationRefusals() {
    return Stream.of(
        Arguments.of(new AwsCallError.ModificationRateExceeded("too many modifications"),
            DriverError.ResourceExhausted.class),
        Arguments.of(new AwsCallError.ModificationInProgress("modification in progress"),
            DriverError.Unavailable.class),
        Arguments.of(new AwsCallError.InvalidRequest("InvalidParameterValue", "iops too high"),
            DriverError.InvalidArgument.class));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("modificationRefusals")
  void ec2sModificationRefusalsBecomeCsiErrors(AwsCallError error, Class<? extends DriverError> kind) {
    String vol = controller.volume("pvc-r", 10);
    cloud.failNext(Ec2Action.MODIFY_VOLUME, error);

    assertError(() -> expand(vol, 20, Requests.MOUNT), kind, error.message());
    assertThat(cloud.peek(vol).orElseThrow().sizeGiB()).isEqualTo(10);
  }

  @Test
  void aModificationStillUnderWayIsAwaitedWhenItHeadsForTheSameTarget() {
    String vol = controller.volume("pvc-w", 10);
    cloud.holdTransitions();
    Thread settler = Thread.ofVirtual().start(() -> {
      try {
        while (cloud.count(Ec2Action.MODIFY_VOLUME) == 0) {
          Thread.sleep(20);
        }
        Thread.sleep(300);
        cloud.settle();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });

    assertThat(expand(vol, 30, Requests.MOUNT).capacityBytes()).isEqualTo(30 * GIB);
    settler.interrupt();
    assertThat(cloud.peek(vol).orElseThrow().sizeGiB()).isEqualTo(30);
  }
}
