package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.assertError;
import static io.awscsi.ebs.controller.Requests.publish;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.provider.GroupSnapshot;
import io.awscsi.core.provider.GroupSnapshotManager;
import io.awscsi.core.provider.GroupSnapshotRequest;
import io.awscsi.core.provider.Snapshot;
import io.awscsi.core.provider.SnapshotQuery;
import io.awscsi.core.provider.VolumeAttacher;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.ebs.cloud.EbsCloud;
import io.awscsi.ebs.cloud.Ec2Action;
import io.awscsi.ebs.cloud.InMemoryEbsCloud;
import io.awscsi.ebs.volume.EbsIds;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** CreateVolumeGroupSnapshot, GetVolumeGroupSnapshot and DeleteVolumeGroupSnapshot through the in-memory EC2. */
class EbsGroupSnapshotManagerTest {

  private final InMemoryController controller = new InMemoryController();
  private final InMemoryEbsCloud cloud = controller.cloud;
  private final GroupSnapshotManager groups = controller.provider.groupSnapshots().orElseThrow();
  private final VolumeAttacher attacher = controller.provider.attacher().orElseThrow();

  private GroupSnapshot create(String name, List<String> volumes, Map<String, String> parameters) {
    return groups.createGroupSnapshot(new GroupSnapshotRequest(name, volumes, parameters, Map.of()));
  }

  private String attachedVolume(String name, String instanceId) {
    String vol = controller.volume(name, 2);
    attacher.publish(publish(vol, instanceId, Requests.MOUNT));
    return vol;
  }

  @Test
  void membersOnOneInstanceAreOneCreateSnapshotsThatExcludesEveryOtherVolumeOfTheInstance() {
    String node = cloud.runInstance(InMemoryController.ZONE);
    String data = attachedVolume("pvc-data", node);
    String log = attachedVolume("pvc-log", node);
    String other = attachedVolume("pvc-other", node);

    GroupSnapshot group = create("db", List.of(data, log),
        Map.of("csi.storage.k8s.io/volumegroupsnapshot/name", "nightly",
            "csi.storage.k8s.io/volumegroupsnapshot/namespace", "shop",
            "csi.storage.k8s.io/volumegroupsnapshotcontent/name", "groupsnapcontent-1",
            "tagSpecification_1", "team=db-{{ .VolumeGroupSnapshotNamespace }}/{{ .VolumeGroupSnapshotName }}"));

    assertThat(EbsIds.isGroupSnapshotId(group.groupSnapshotId())).as(group.groupSnapshotId()).isTrue();
    assertThat(cloud.count(Ec2Action.CREATE_SNAPSHOTS)).isEqualTo(1);
    assertThat(cloud.count(Ec2Action.CREATE_SNAPSHOT)).isZero();
    assertThat(group.snapshots()).extracting(Snapshot::sourceVolumeId).containsExactlyInAnyOrder(data, log);
    assertThat(group.snapshots()).extracting(Snapshot::groupSnapshotId).containsOnly(group.groupSnapshotId());
    assertThat(group.snapshots()).extracting(Snapshot::createdAt).as("one point in time").hasSize(2)
        .allMatch(t -> t.equals(group.createdAt()));
    assertThat(group.readyToUse()).isFalse();
    for (Snapshot s : group.snapshots()) {
      assertThat(cloud.peekSnapshot(s.snapshotId()).orElseThrow().tags())
          .containsEntry(EbsCloud.GROUP_SNAPSHOT_NAME_TAG, "db")
          .containsEntry(EbsCloud.GROUP_SNAPSHOT_ID_TAG, group.groupSnapshotId())
          .containsEntry(EbsCloud.GROUP_SNAPSHOT_CONSISTENCY_TAG, "crash-consistent")
          .containsEntry("team", "db-shop/nightly")
          .containsEntry("kubernetes.io/created-for/volumegroupsnapshot/name", "nightly")
          .containsEntry("kubernetes.io/created-for/volumegroupsnapshot/namespace", "shop")
          .containsEntry("kubernetes.io/created-for/volumegroupsnapshotcontent/name", "groupsnapcontent-1")
          .doesNotContainKey(EbsCloud.SNAPSHOT_NAME_TAG);
    }
    // Neither the boot volume nor the non-member data volume was snapshotted.
    assertThat(controller.provider.snapshots().orElseThrow().listSnapshots(new SnapshotQuery("", "", 0, ""))
        .entries()).extracting(Snapshot::sourceVolumeId).containsExactlyInAnyOrder(data, log)
        .doesNotContain(other, "vol-root");
  }

  @Test
  void theSameNameAndMembersIsTheSameGroupOtherMembersAreAlreadyExists() {
    String node = cloud.runInstance(InMemoryController.ZONE);
    String a = attachedVolume("pvc-a", node);
    String b = attachedVolume("pvc-b", node);
    String c = attachedVolume("pvc-c", node);
    GroupSnapshot first = create("g1", List.of(a, b), Map.of());

    GroupSnapshot again = create("g1", List.of(b, a), Map.of());
    assertThat(again.groupSnapshotId()).isEqualTo(first.groupSnapshotId());
    assertThat(again.snapshots()).extracting(Snapshot::snapshotId)
        .containsExactlyInAnyOrderElementsOf(first.snapshots().stream().map(Snapshot::snapshotId).toList());
    assertThat(again.readyToUse()).as("settled by EC2 meanwhile").isTrue();
    assertThat(cloud.count(Ec2Action.CREATE_SNAPSHOTS)).isEqualTo(1);

    assertError(() -> create("g1", List.of(a, c), Map.of()), DriverError.AlreadyExists.class, "g1",
        first.groupSnapshotId(), c);
  }

  @Test
  void membersOnSeveralInstancesOrUnattachedAreRefusedNamingWhereEachIsUnlessBestEffort() {
    String one = cloud.runInstance(InMemoryController.ZONE);
    String two = cloud.runInstance(InMemoryController.ZONE);
    String a = attachedVolume("pvc-a", one);
    String b = attachedVolume("pvc-b", two);
    String loose = controller.volume("pvc-loose", 1);

    assertError(() -> create("spread", List.of(a, b, loose), Map.of()), DriverError.FailedPrecondition.class,
        a + ": " + one, b + ": " + two, loose + ": not attached", "crashConsistency");
    assertThat(cloud.count(Ec2Action.CREATE_SNAPSHOTS)).isZero();

    GroupSnapshot group = create("spread", List.of(a, b, loose), Map.of("crashConsistency", "bestEffort"));
    assertThat(group.snapshots()).extracting(Snapshot::sourceVolumeId).containsExactlyInAnyOrder(a, b, loose);
    assertThat(cloud.count(Ec2Action.CREATE_SNAPSHOTS)).isEqualTo(2);
    assertThat(cloud.count(Ec2Action.CREATE_SNAPSHOT)).isEqualTo(1);
    for (Snapshot s : group.snapshots()) {
      assertThat(cloud.peekSnapshot(s.snapshotId()).orElseThrow().tag(EbsCloud.GROUP_SNAPSHOT_CONSISTENCY_TAG))
          .as("a best-effort group is never called crash-consistent").isEqualTo("best-effort");
    }
    assertError(() -> create("x", List.of(a), Map.of("crashConsistency", "sometimes")),
        DriverError.InvalidArgument.class, "crashConsistency", "required or bestEffort");
    assertError(() -> create("x", List.of(a), Map.of("consistencyGroup", "1")),
        DriverError.InvalidArgument.class, "consistencyGroup");
  }

  @Test
  void aMissingVolumeIsNotFoundAndNothingIsTaken() {
    String node = cloud.runInstance(InMemoryController.ZONE);
    String data = attachedVolume("pvc-data", node);
    assertError(() -> create("gone", List.of(data, "vol-00000000"), Map.of()), DriverError.NotFound.class,
        "vol-00000000");
    assertThat(cloud.count(Ec2Action.CREATE_SNAPSHOTS)).isZero();
  }

  @Test
  void getAndDeleteFindTheMembersByTheGroupIdAndCheckTheCosList() {
    String node = cloud.runInstance(InMemoryController.ZONE);
    String a = attachedVolume("pvc-a", node);
    String b = attachedVolume("pvc-b", node);
    GroupSnapshot group = create("g", List.of(a, b), Map.of());
    List<String> ids = group.snapshots().stream().map(Snapshot::snapshotId).toList();

    assertThat(groups.getGroupSnapshot(group.groupSnapshotId(), ids, Map.of()).readyToUse()).isTrue();
    assertThat(groups.getGroupSnapshot(group.groupSnapshotId(), List.of(), Map.of()).snapshots()).hasSize(2);
    assertError(() -> groups.getGroupSnapshot(group.groupSnapshotId(), List.of(ids.get(0)), Map.of()),
        DriverError.InvalidArgument.class, "snapshot_ids", ids.get(1));
    assertError(() -> groups.getGroupSnapshot("groupsnap-0123456789abcdef0", List.of(), Map.of()),
        DriverError.NotFound.class, "groupsnap-0123456789abcdef0");
    assertError(() -> groups.deleteGroupSnapshot(group.groupSnapshotId(), List.of(ids.get(0)), Map.of()),
        DriverError.InvalidArgument.class, "snapshot_ids", ids.get(1));

    // Each member restores as an ordinary snapshot.
    var restored = controller.provider.provisioner().createVolume(Requests.volume("pvc-r", 2, Map.of(),
        Requests.MOUNT, new VolumeSource.FromSnapshot(ids.get(0))));
    assertThat(cloud.peek(restored.volumeId()).orElseThrow().snapshotId()).isEqualTo(ids.get(0));

    groups.deleteGroupSnapshot(group.groupSnapshotId(), ids, Map.of());
    assertThat(ids).allSatisfy(id -> assertThat(cloud.peekSnapshot(id)).isEmpty());
    groups.deleteGroupSnapshot(group.groupSnapshotId(), ids, Map.of());
    assertThat(cloud.snapshotsTagged(EbsCloud.GROUP_SNAPSHOT_ID_TAG, group.groupSnapshotId(), null)).isEmpty();
  }
}
