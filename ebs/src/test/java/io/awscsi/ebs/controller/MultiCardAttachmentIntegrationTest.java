package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.publish;
import static io.awscsi.ebs.controller.Requests.volume;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.VolumeAttacher;
import io.awscsi.realism.RealismProfile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.ec2.model.InstanceBlockDeviceMapping;

/**
 * Attaching on an instance type with two EBS cards against moto behind the EC2 realism layer: moto's
 * DescribeInstanceTypes says c8gb.48xlarge has {@code MaximumEbsCards} 2, AttachVolume names a card, and EC2's
 * answers (the layer records the card moto ignores) show each attachment on the card named.
 */
@Tag("integration")
class MultiCardAttachmentIntegrationTest {

  private static Ec2Environment env;
  private EbsControllerProvider provider;
  private VolumeAttacher attacher;
  private int created;

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
    provider = env.provider(Ec2Environment.testOptions(), new MetricsRegistry());
    attacher = provider.attacher().orElseThrow();
  }

  private List<String> publishVolumes(String node, int count) {
    List<String> volumes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String vol = provider.provisioner().createVolume(volume("pvc-card-" + created++, 1, Map.of())).volumeId();
      attacher.publish(publish(vol, node, Requests.MOUNT));
      volumes.add(vol);
    }
    return volumes;
  }

  private Integer cardInDescribeVolumes(String volumeId) {
    return env.ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst().attachments().getFirst()
        .ebsCardIndex();
  }

  private Map<String, Integer> cardsInDescribeInstances(String node) {
    Map<String, Integer> cards = new HashMap<>();
    for (InstanceBlockDeviceMapping m : env.ec2.describeInstances(r -> r.instanceIds(node)).reservations()
        .getFirst().instances().getFirst().blockDeviceMappings()) {
      if (m.ebs() != null && m.ebs().ebsCardIndex() != null) {
        cards.put(m.ebs().volumeId(), m.ebs().ebsCardIndex());
      }
    }
    return cards;
  }

  @Test
  void volumesGoToTheLeastOccupiedCardAndEc2ShowsEachOnItsCard() {
    String node = env.runInstance(Ec2Environment.ZONE, "c8gb.48xlarge");

    List<String> volumes = publishVolumes(node, 3);
    // No volume has a card yet (moto's root volume shows none): 0, then 1, then 0 again (lower index on a tie).
    assertThat(volumes.stream().map(this::cardInDescribeVolumes).toList()).containsExactly(0, 1, 0);
    assertThat(cardsInDescribeInstances(node)).containsExactlyInAnyOrderEntriesOf(Map.of(
        volumes.get(0), 0, volumes.get(1), 1, volumes.get(2), 0));
    assertThat(env.proxy.stats().calls("ec2", "DescribeInstanceTypes")).isEqualTo(1);

    // A detach frees its place: card 1 is now the emptier one.
    attacher.unpublish(volumes.get(1), node, Map.of());
    List<String> more = publishVolumes(node, 1);
    assertThat(cardInDescribeVolumes(more.getFirst())).isEqualTo(1);
  }

  @Test
  void aOneCardTypeAttachesWithoutACardIndex() {
    String node = env.runInstance(Ec2Environment.ZONE, "m5.large");

    String vol = publishVolumes(node, 1).getFirst();
    assertThat(cardInDescribeVolumes(vol)).isNull();
    assertThat(cardsInDescribeInstances(node)).isEmpty();
  }
}
