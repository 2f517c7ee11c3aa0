package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.publish;
import static io.awscsi.ebs.controller.Requests.volume;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.GroupSnapshot;
import io.awscsi.core.provider.GroupSnapshotManager;
import io.awscsi.core.provider.GroupSnapshotRequest;
import io.awscsi.core.provider.Snapshot;
import io.awscsi.core.provider.SnapshotQuery;
import io.awscsi.core.provider.VolumeAttacher;
import io.awscsi.realism.RealismProfile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.ec2.model.CreateSnapshotsResponse;
import software.amazon.awssdk.services.ec2.model.InstanceSpecification;

/** Volume group snapshots against moto behind the EC2 realism layer, which models CreateSnapshots as EC2 does. */
@Tag("integration")
class GroupSnapshotIntegrationTest {

  private static Ec2Environment env;
  private EbsControllerProvider provider;
  private GroupSnapshotManager groups;
  private VolumeAttacher attacher;

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
    groups = provider.groupSnapshots().orElseThrow();
    attacher = provider.attacher().orElseThrow();
  }

  private String attached(String name, String node) {
    String vol = provider.provisioner().createVolume(volume(name, 2, Map.of())).volumeId();
    attacher.publish(publish(vol, node, Requests.MOUNT));
    return vol;
  }

  @Test
  void theRealismLayerTakesOnlyTheMembersAtOneStartTimeEachWithItsOwnProgress() throws Exception {
    String node = env.runInstance(Ec2Environment.ZONE);
    String data = attached("pvc-data", node);
    String log = attached("pvc-log", node);
    String other = attached("pvc-other", node);

    GroupSnapshot group = groups.createGroupSnapshot(new GroupSnapshotRequest("db", List.of(data, log), Map.of(),
        Map.of()));

    assertThat(env.proxy.stats().calls("ec2", "CreateSnapshots")).isEqualTo(1);
    assertThat(group.snapshots()).extracting(Snapshot::sourceVolumeId).containsExactlyInAnyOrder(data, log);
    assertThat(group.snapshots()).extracting(Snapshot::createdAt).containsOnly(group.createdAt());
    assertThat(group.readyToUse()).isFalse();
    // Nothing of the excluded data volume nor of the boot volume exists in EC2 (moto alone would have taken both).
    List<Snapshot> all = provider.snapshots().orElseThrow().listSnapshots(new SnapshotQuery("", "", 0, ""))
        .entries();
    assertThat(all).extracting(Snapshot::sourceVolumeId).containsExactlyInAnyOrder(data, log).doesNotContain(other);
    assertThat(all).extracting(Snapshot::groupSnapshotId).containsOnly(group.groupSnapshotId());

    List<String> ids = group.snapshots().stream().map(Snapshot::snapshotId).toList();
    GroupSnapshot ready = group;
    for (int i = 0; i < 100 && !ready.readyToUse(); i++) {
      Thread.sleep(100);
      ready = groups.getGroupSnapshot(group.groupSnapshotId(), ids, Map.of());
    }
    assertThat(ready.readyToUse()).isTrue();
    assertThat(ready.snapshots()).extracting(Snapshot::createdAt).as("describes keep the one start time")
        .containsOnly(group.createdAt());

    groups.deleteGroupSnapshot(group.groupSnapshotId(), ids, Map.of());
    assertThat(provider.snapshots().orElseThrow().listSnapshots(new SnapshotQuery("", "", 0, "")).entries())
        .isEmpty();
  }

  @Test
  void excludeBootVolumeAndExcludeDataVolumeIdsAreHonouredOnTheWire() {
    String node = env.runInstance(Ec2Environment.ZONE);
    String a = attached("pvc-a", node);
    String b = attached("pvc-b", node);
    CreateSnapshotsResponse response = env.ec2.createSnapshots(r -> r.instanceSpecification(InstanceSpecification
        .builder().instanceId(node).excludeBootVolume(true).excludeDataVolumeIds(b).build()));
    assertThat(response.snapshots()).extracting(s -> s.volumeId()).containsExactly(a);
    CreateSnapshotsResponse withBoot = env.ec2.createSnapshots(r -> r.instanceSpecification(InstanceSpecification
        .builder().instanceId(node).excludeBootVolume(false).excludeDataVolumeIds(a, b).build()));
    assertThat(withBoot.snapshots()).singleElement().satisfies(s -> assertThat(s.volumeId()).isNotIn(a, b));
  }
}
