package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.assertError;
import static io.awscsi.ebs.controller.Requests.publish;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.errors.DriverError;
import io.awscsi.core.provider.VolumeAttacher;
import io.awscsi.ebs.cloud.Attachment;
import io.awscsi.ebs.cloud.Ec2Action;
import io.awscsi.ebs.cloud.InMemoryEbsCloud;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Instance types with several EBS cards (upstream's multi-card AttachDisk): the card count from DescribeInstanceTypes
 * (remembered, with the static table when the call fails), the least-occupied card named in AttachVolume, and the
 * wait that accepts only an attachment on that card.
 */
class EbsCardAttachTest {

  private static final String TWO_CARDS = "c8gb.48xlarge";

  private final InMemoryController controller = new InMemoryController(InMemoryController.options()
      .withDefaultCallTimeout(Duration.ofSeconds(3)));
  private final InMemoryEbsCloud cloud = controller.cloud;
  private final VolumeAttacher attacher = controller.provider.attacher().orElseThrow();

  private OptionalInt cardOf(String volumeId, String node) {
    return cloud.peek(volumeId).orElseThrow().attachmentTo(node).orElseThrow().ebsCard();
  }

  private List<Integer> publishVolumes(String node, int count) {
    List<Integer> cards = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String vol = controller.volume("pvc-card-" + node + "-" + i, 1);
      attacher.publish(publish(vol, node, Requests.MOUNT));
      cards.add(cardOf(vol, node).orElseThrow());
    }
    return cards;
  }

  @Test
  void onATwoCardTypeEachAttachGoesToTheCardWithFewestVolumesLowerIndexOnATie() {
    cloud.maximumEbsCards(TWO_CARDS, 2);
    String node = cloud.runInstance(InMemoryController.ZONE, TWO_CARDS);

    // The root volume is on card 0: card 1 first, then a tie (0 wins), and so on.
    assertThat(publishVolumes(node, 4)).containsExactly(1, 0, 1, 0);
    // One DescribeInstanceTypes for the four attaches: the count is remembered.
    assertThat(cloud.count(Ec2Action.DESCRIBE_INSTANCE_TYPES)).isEqualTo(1);
  }

  @Test
  void volumesOthersAttachedCountOnTheirCard() {
    cloud.maximumEbsCards(TWO_CARDS, 2);
    String node = cloud.runInstance(InMemoryController.ZONE, TWO_CARDS);
    cloud.attachedElsewhere(node, "/dev/sdf", 1);
    cloud.attachedElsewhere(node, "/dev/sdg", 1);

    // Card 0: the root volume; card 1: two volumes of someone else. Card 0 takes the next one, then wins the tie,
    // then card 1 is the emptier.
    assertThat(publishVolumes(node, 3)).containsExactly(0, 0, 1);
  }

  @Test
  void aDetachedVolumeFreesItsPlaceOnTheCard() {
    cloud.maximumEbsCards(TWO_CARDS, 2);
    String node = cloud.runInstance(InMemoryController.ZONE, TWO_CARDS);
    String first = controller.volume("pvc-d1", 1);
    String second = controller.volume("pvc-d2", 1);
    attacher.publish(publish(first, node, Requests.MOUNT));
    attacher.publish(publish(second, node, Requests.MOUNT));
    assertThat(cardOf(first, node)).hasValue(1);
    assertThat(cardOf(second, node)).hasValue(0);

    attacher.unpublish(first, node, Map.of());
    String third = controller.volume("pvc-d3", 1);
    attacher.publish(publish(third, node, Requests.MOUNT));
    assertThat(cardOf(third, node)).hasValue(1);
  }

  @Test
  void aOneCardTypeSendsNoCardIndex() {
    String node = cloud.runInstance(InMemoryController.ZONE, "m5.large");
    String vol = controller.volume("pvc-one", 1);

    attacher.publish(publish(vol, node, Requests.MOUNT));
    assertThat(cardOf(vol, node)).isEmpty();
    assertThat(cloud.count(Ec2Action.DESCRIBE_INSTANCE_TYPES)).isEqualTo(1);
  }

  @Test
  void whenDescribeInstanceTypesFailsTheStaticTableAnswers() {
    cloud.maximumEbsCards(TWO_CARDS, 2);
    cloud.maximumEbsCards("x9z.big", 2);
    String listed = cloud.runInstance(InMemoryController.ZONE, TWO_CARDS);
    String unlisted = cloud.runInstance(InMemoryController.ZONE, "x9z.big");
    cloud.failNext(Ec2Action.DESCRIBE_INSTANCE_TYPES, new AwsCallError.AccessDenied("UnauthorizedOperation",
        "no ec2:DescribeInstanceTypes"));
    cloud.failNext(Ec2Action.DESCRIBE_INSTANCE_TYPES, new AwsCallError.AccessDenied("UnauthorizedOperation",
        "no ec2:DescribeInstanceTypes"));

    // The table lists c8gb.48xlarge with two cards; a type it does not list has one.
    assertThat(publishVolumes(listed, 2)).containsExactly(1, 0);
    String vol = controller.volume("pvc-unlisted", 1);
    attacher.publish(publish(vol, unlisted, Requests.MOUNT));
    assertThat(cardOf(vol, unlisted)).isEmpty();
    assertThat(cloud.count(Ec2Action.DESCRIBE_INSTANCE_TYPES)).isEqualTo(2);
  }

  @Test
  void anAttachmentOnAnotherCardThanAskedIsNotTakenAsAttached() {
    cloud.maximumEbsCards(TWO_CARDS, 2);
    String node = cloud.runInstance(InMemoryController.ZONE, TWO_CARDS);
    String vol = controller.volume("pvc-wrong-card", 1);
    cloud.attachOnCard(0); // the attacher asks for card 1 (the root volume is on 0)

    assertError(() -> attacher.publish(publish(vol, node, Requests.MOUNT)), DriverError.class, vol);
    assertThat(cardOf(vol, node)).hasValue(0);
  }

  @Test
  void theCardCountIsRememberedForAnHourThenAskedAgain() {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    EbsCardCounts counts = new EbsCardCounts(cloud, now::get);
    cloud.maximumEbsCards(TWO_CARDS, 2);
    CallDeadline deadline = CallDeadline.after(Duration.ofSeconds(5));

    assertThat(counts.cardsOf(TWO_CARDS, deadline)).isEqualTo(2);
    cloud.maximumEbsCards(TWO_CARDS, 3);
    now.set(now.get().plus(Duration.ofMinutes(59)));
    assertThat(counts.cardsOf(TWO_CARDS, deadline)).isEqualTo(2);
    now.set(now.get().plus(Duration.ofMinutes(2)));
    assertThat(counts.cardsOf(TWO_CARDS, deadline)).isEqualTo(3);
    assertThat(cloud.count(Ec2Action.DESCRIBE_INSTANCE_TYPES)).isEqualTo(2);
  }
}
