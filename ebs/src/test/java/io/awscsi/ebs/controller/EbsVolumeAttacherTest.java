package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.assertError;
import static io.awscsi.ebs.controller.Requests.publish;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.core.errors.DriverError;
import io.awscsi.core.provider.VolumeAttacher;
import io.awscsi.ebs.cloud.Attachment;
import io.awscsi.ebs.cloud.Disk;
import io.awscsi.ebs.cloud.Ec2Action;
import io.awscsi.ebs.cloud.InMemoryEbsCloud;
import io.awscsi.ebs.volume.PublishContextKeys;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** ControllerPublishVolume and ControllerUnpublishVolume through the in-memory EC2. */
class EbsVolumeAttacherTest {

  private final InMemoryController controller = new InMemoryController(InMemoryController.options()
      .withStuckAttachingTimeout(Duration.ofMillis(500)));
  private final InMemoryEbsCloud cloud = controller.cloud;
  private final VolumeAttacher attacher = controller.provider.attacher().orElseThrow();

  @Test
  void publishAttachesOnTheFirstFreeDeviceRepeatsItAndUnpublishDetaches() {
    String vol = controller.volume("pvc-a", 2);
    String node = cloud.runInstance(InMemoryController.ZONE);

    Map<String, String> context = attacher.publish(publish(vol, node, Requests.MOUNT));
    assertThat(context).containsExactly(Map.entry(PublishContextKeys.DEVICE_PATH, "/dev/xvdaa"));
    assertThat(cloud.peek(vol).orElseThrow().attachmentTo(node)).map(Attachment::state)
        .contains(Attachment.State.ATTACHED);
    assertThat(attacher.publish(publish(vol, node, Requests.MOUNT))).isEqualTo(context);
    assertThat(cloud.count(Ec2Action.ATTACH_VOLUME)).isEqualTo(1);

    attacher.unpublish(vol, node, Map.of());
    assertThat(cloud.peek(vol).orElseThrow().attachments()).isEmpty();
    assertThat(cloud.peek(vol).orElseThrow().state()).isEqualTo(Disk.State.AVAILABLE);
    attacher.unpublish(vol, node, Map.of());
  }

  @Test
  void aSecondVolumeOnANodeGetsTheNextDeviceAndARefusedNameIsReplaced() {
    String node = cloud.runInstance(InMemoryController.ZONE);
    String first = controller.volume("pvc-b1", 1);
    String second = controller.volume("pvc-b2", 1);
    String third = controller.volume("pvc-b3", 1);

    assertThat(attacher.publish(publish(first, node, Requests.MOUNT))).containsValue("/dev/xvdaa");
    assertThat(attacher.publish(publish(second, node, Requests.MOUNT))).containsValue("/dev/xvdab");
    cloud.failNext(Ec2Action.ATTACH_VOLUME, new AwsCallError.DeviceNameInUse("/dev/xvdac is already in use"));
    assertThat(attacher.publish(publish(third, node, Requests.MOUNT))).containsValue("/dev/xvdad");
    // The refused name made the attacher describe the instance again before the next name.
    assertThat(cloud.count(Ec2Action.DESCRIBE_INSTANCES)).isEqualTo(2);
  }

  @Test
  void aVolumeAttachedElsewhereIsFailedPreconditionNamingTheNode() {
    String vol = controller.volume("pvc-c", 1);
    String one = cloud.runInstance(InMemoryController.ZONE);
    String two = cloud.runInstance(InMemoryController.ZONE);
    attacher.publish(publish(vol, one, Requests.MOUNT));

    assertError(() -> attacher.publish(publish(vol, two, Requests.MOUNT)), DriverError.FailedPrecondition.class,
        one);
    assertThat(cloud.count(Ec2Action.ATTACH_VOLUME)).isEqualTo(1);
  }

  @Test
  void io2MultiAttachServesABlockVolumeOnTwoNodes() {
    String vol = controller.provider.provisioner().createVolume(Requests.volume("pvc-m", 4,
        Map.of("type", "io2", "iops", "1000"), Requests.MULTI_BLOCK, new io.awscsi.core.provider.VolumeSource.Empty()))
        .volumeId();
    String one = cloud.runInstance(InMemoryController.ZONE);
    String two = cloud.runInstance(InMemoryController.ZONE);

    attacher.publish(publish(vol, one, Requests.MULTI_BLOCK));
    attacher.publish(publish(vol, two, Requests.MULTI_BLOCK));
    assertThat(cloud.peek(vol).orElseThrow().activeAttachments()).extracting(Attachment::instanceId)
        .containsExactlyInAnyOrder(one, two);
  }

  static Stream<Arguments> injectedAttachFailures() {
    return Stream.of(
        Arguments.of(new AwsCallError.AttachmentLimitExceeded("too many"), DriverError.ResourceExhausted.class,
            "cannot take another volume"),
        Arguments.of(new AwsCallError.Throttled("RequestLimitExceeded", "slow down"), DriverError.Unavailable.class,
            "slow down"),
        Arguments.of(new AwsCallError.AccessDenied("UnauthorizedOperation", "no ec2:AttachVolume"),
            DriverError.PermissionDenied.class, "IAM role"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("injectedAttachFailures")
  void ec2sRefusalsOfAttachVolumeBecomeCsiErrors(AwsCallError error, Class<? extends DriverError> kind, String part) {
    String vol = controller.volume("pvc-e", 1);
    String node = cloud.runInstance(InMemoryController.ZONE);
    cloud.failNext(Ec2Action.ATTACH_VOLUME, error);

    assertError(() -> attacher.publish(publish(vol, node, Requests.MOUNT)), kind, part);
    assertThat(cloud.peek(vol).orElseThrow().attachments()).isEmpty();
    // Nothing is left reserved: the retry attaches.
    assertThat(attacher.publish(publish(vol, node, Requests.MOUNT))).containsKey(PublishContextKeys.DEVICE_PATH);
  }

  @Test
  void anUnknownVolumeOrInstanceIsNotFoundAndUnpublishOfEitherSucceeds() {
    String vol = controller.volume("pvc-n", 1);
    String node = cloud.runInstance(InMemoryController.ZONE);

    assertError(() -> attacher.publish(publish("vol-0000", node, Requests.MOUNT)), DriverError.NotFound.class,
        "vol-0000");
    assertError(() -> attacher.publish(publish(vol, "i-00000000", Requests.MOUNT)), DriverError.NotFound.class,
        "i-00000000");
    attacher.unpublish("vol-0000", node, Map.of());
    attacher.unpublish(vol, "i-00000000", Map.of());
  }

  @Test
  void aVolumeStuckInAttachingIsDetachedAndTheCallFailsRetryably() {
    String vol = controller.volume("pvc-stuck", 1);
    String node = cloud.runInstance(InMemoryController.ZONE);
    cloud.holdTransitions();

    assertError(() -> attacher.publish(publish(vol, node, Requests.MOUNT)), DriverError.Unavailable.class,
        "stuck in attaching");
    assertThat(cloud.count(Ec2Action.DETACH_VOLUME)).isEqualTo(1);
    assertThat(cloud.peek(vol).orElseThrow().attachmentTo(node)).map(Attachment::state)
        .contains(Attachment.State.DETACHING);
  }
}
