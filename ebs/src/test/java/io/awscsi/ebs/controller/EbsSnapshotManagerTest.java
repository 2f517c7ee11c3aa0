package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.core.errors.DriverError;
import io.awscsi.core.provider.Page;
import io.awscsi.core.provider.Snapshot;
import io.awscsi.core.provider.SnapshotManager;
import io.awscsi.core.provider.SnapshotQuery;
import io.awscsi.core.provider.SnapshotRequest;
import io.awscsi.ebs.cloud.EbsCloud;
import io.awscsi.ebs.cloud.Ec2Action;
import io.awscsi.ebs.cloud.InMemoryEbsCloud;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** CreateSnapshot, DeleteSnapshot and ListSnapshots through the in-memory EC2. */
class EbsSnapshotManagerTest {

  private final InMemoryController controller = new InMemoryController();
  private final InMemoryEbsCloud cloud = controller.cloud;
  private final SnapshotManager snapshots = controller.provider.snapshots().orElseThrow();

  private Snapshot create(String volumeId, String name, Map<String, String> parameters) {
    return snapshots.createSnapshot(new SnapshotRequest(volumeId, name, parameters, Map.of()));
  }

  @Test
  void createsATaggedSnapshotThatBecomesReadyAndIsIdempotentByName() {
    String vol = controller.volume("pvc-s", 3);

    Snapshot first = create(vol, "snap-a", Map.of("csi.storage.k8s.io/volumesnapshot/name", "daily"));
    assertThat(first.readyToUse()).isFalse();
    assertThat(first.sizeBytes()).isEqualTo(3 * Requests.GIB);
    assertThat(cloud.peekSnapshot(first.snapshotId()).orElseThrow().tags())
        .containsEntry(EbsCloud.SNAPSHOT_NAME_TAG, "snap-a")
        .containsEntry("kubernetes.io/created-for/volumesnapshot/name", "daily");

    Snapshot again = create(vol, "snap-a", Map.of());
    assertThat(again.snapshotId()).isEqualTo(first.snapshotId());
    assertThat(again.readyToUse()).isTrue();
    assertThat(cloud.count(Ec2Action.CREATE_SNAPSHOT)).isEqualTo(1);
  }

  @Test
  void theSameNameForAnotherVolumeIsAlreadyExistsAndAMissingSourceIsNotFound() {
    String one = controller.volume("pvc-1", 1);
    String two = controller.volume("pvc-2", 1);
    create(one, "snap-b", Map.of());

    assertError(() -> create(two, "snap-b", Map.of()), DriverError.AlreadyExists.class, one, two);
    assertError(() -> create("vol-0000", "snap-c", Map.of()), DriverError.NotFound.class, "vol-0000");
  }

  @Test
  void theClassOutpostArnGoesWithCreateSnapshotAndAnInvalidOneIsInvalidArgumentNamingIt() {
    String vol = controller.volume("pvc-o", 2);
    String arn = "arn:aws:outposts:us-east-1:111122223333:outpost/op-0123456789abcdef0";

    Snapshot local = create(vol, "snap-op", Map.of("outpostArn", arn));
    assertThat(cloud.peekSnapshot(local.snapshotId()).orElseThrow().outpostArn()).isEqualTo(arn);
    Snapshot regional = create(vol, "snap-region", Map.of());
    assertThat(cloud.peekSnapshot(regional.snapshotId()).orElseThrow().outpostArn()).isEmpty();

    assertError(() -> create(vol, "snap-bad", Map.of("outpostArn", "op-0123456789abcdef0")),
        DriverError.InvalidArgument.class, "outpostArn", "not a valid arn");
    assertThat(cloud.count(Ec2Action.CREATE_SNAPSHOT)).isEqualTo(2);
  }

  @Test
  void deleteIsIdempotentAndALockedSnapshotIsFailedPrecondition() {
    String vol = controller.volume("pvc-d", 1);
    Snapshot s = create(vol, "snap-d", Map.of());
    snapshots.deleteSnapshot(s.snapshotId(), Map.of());
    snapshots.deleteSnapshot(s.snapshotId(), Map.of());
    assertThat(cloud.peekSnapshot(s.snapshotId())).isEmpty();

    Snapshot locked = create(vol, "snap-l", Map.of("lockMode", "governance", "lockDuration", "1"));
    assertThat(cloud.locked(locked.snapshotId())).isTrue();
    assertError(() -> snapshots.deleteSnapshot(locked.snapshotId(), Map.of()),
        DriverError.FailedPrecondition.class, locked.snapshotId());
  }

  static Stream<Arguments> listings() {
    return Stream.of(
        Arguments.of("all, three at a time", "", 3, 7, 3),
        Arguments.of("all, one page", "", 0, 7, 1),
        Arguments.of("of one source volume", "first", 2, 4, 2));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("listings")
  void listSnapshotsPagesThroughEverySnapshot(String why, String source, int maxEntries, int expected,
      int expectedPages) {
    String first = controller.volume("pvc-l1", 1);
    String second = controller.volume("pvc-l2", 1);
    for (int i = 0; i < 7; i++) {
      create(i < 4 ? first : second, "snap-" + i, Map.of());
    }
    String sourceVolume = source.isEmpty() ? "" : first;

    List<Snapshot> seen = new ArrayList<>();
    int pages = 0;
    String token = "";
    do {
      Page<Snapshot> page = snapshots.listSnapshots(new SnapshotQuery("", sourceVolume, maxEntries, token));
      assertThat(page.entries().size()).isLessThanOrEqualTo(maxEntries == 0 ? Integer.MAX_VALUE : maxEntries);
      seen.addAll(page.entries());
      token = page.nextToken();
      pages++;
    } while (!token.isEmpty());

    assertThat(seen).hasSize(expected).extracting(Snapshot::snapshotId).doesNotHaveDuplicates();
    assertThat(pages).isEqualTo(expectedPages);
    if (!sourceVolume.isEmpty()) {
      assertThat(seen).allSatisfy(s -> assertThat(s.sourceVolumeId()).isEqualTo(first));
    }
  }

  @Test
  void listingByIdFindsOneOrNoneAndAForeignTokenIsAborted() {
    String vol = controller.volume("pvc-i", 1);
    Snapshot s = create(vol, "snap-i", Map.of());

    assertThat(snapshots.listSnapshots(new SnapshotQuery(s.snapshotId(), "", 0, "")).entries())
        .extracting(Snapshot::snapshotId).containsExactly(s.snapshotId());
    assertThat(snapshots.listSnapshots(new SnapshotQuery("snap-0000", "", 0, "")).entries()).isEmpty();
    assertError(() -> snapshots.listSnapshots(new SnapshotQuery("", "", 0, "not-a-token")),
        DriverError.Aborted.class);
  }

  static Stream<Arguments> failedFollowUps() {
    return Stream.of(
        Arguments.of(Ec2Action.ENABLE_FAST_SNAPSHOT_RESTORES,
            Map.of("fastSnapshotRestoreAvailabilityZones", InMemoryController.ZONE), "fast snapshot restore"),
        Arguments.of(Ec2Action.LOCK_SNAPSHOT, Map.of("lockMode", "governance", "lockDuration", "1"), "lock"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failedFollowUps")
  void aFailedFollowUpDeletesTheSnapshotAndFails(Ec2Action step, Map<String, String> parameters, String part) {
    String vol = controller.volume("pvc-f", 1);
    cloud.failNext(step, new AwsCallError.InvalidRequest("InvalidParameterValue", "not available here"));

    assertError(() -> create(vol, "snap-f", parameters), DriverError.InvalidArgument.class, part, "deleted");
    assertThat(cloud.count(Ec2Action.DELETE_SNAPSHOT)).isEqualTo(1);
    assertThat(snapshots.listSnapshots(new SnapshotQuery("", "", 0, "")).entries()).isEmpty();
  }
}
