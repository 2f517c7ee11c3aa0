package io.awscsi.core.csi;

import static io.awscsi.core.testing.FailedCall.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateVolumeGroupSnapshotRequest;
import csi.v1.DeleteVolumeGroupSnapshotRequest;
import csi.v1.GetPluginCapabilitiesRequest;
import csi.v1.GetVolumeGroupSnapshotRequest;
import csi.v1.GroupControllerGetCapabilitiesRequest;
import csi.v1.GroupControllerServiceCapability;
import csi.v1.PluginCapability;
import csi.v1.VolumeGroupSnapshot;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.GroupSnapshot;
import io.awscsi.core.provider.GroupSnapshotManager;
import io.awscsi.core.provider.GroupSnapshotRequest;
import io.awscsi.core.provider.IdSyntax;
import io.awscsi.core.provider.Snapshot;
import io.awscsi.core.testing.FakeControllerProvider;
import io.awscsi.core.testing.FakeDriver;
import io.awscsi.core.testing.InProcessCsiServer;
import io.awscsi.core.testing.LogCapture;
import io.grpc.Status;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GroupControllerServiceTest {

  /** Volumes are "vol-*", snapshots "snap-*", groups "group-*": anything else cannot exist. */
  private static final IdSyntax SHAPES = new IdSyntax() {
    @Override
    public Optional<String> volumeIdProblem(String id) {
      return id.startsWith("vol-") ? Optional.empty() : Optional.of("not vol-*");
    }

    @Override
    public Optional<String> groupSnapshotIdProblem(String id) {
      return id.startsWith("group-") ? Optional.empty() : Optional.of("not group-*");
    }
  };

  /** Remembers groups by name; the same name with other members is AlreadyExists, as the contract says. */
  static final class RecordingGroups implements GroupSnapshotManager {
    final Map<String, GroupSnapshotRequest> byName = new LinkedHashMap<>();
    final List<String> deleted = new ArrayList<>();
    boolean ready;

    @Override
    public synchronized GroupSnapshot createGroupSnapshot(GroupSnapshotRequest request) {
      GroupSnapshotRequest earlier = byName.putIfAbsent(request.name(), request);
      if (earlier != null && !earlier.sourceVolumeIds().equals(request.sourceVolumeIds())) {
        throw DriverException.alreadyExists("group " + request.name() + " has other members");
      }
      return group("group-" + request.name(), byName.get(request.name()).sourceVolumeIds());
    }

    GroupSnapshot group(String id, List<String> members) {
      List<Snapshot> snapshots = members.stream()
          .map(v -> new Snapshot("snap-" + v, v, 1L << 30, Instant.ofEpochSecond(100), ready, id)).toList();
      return new GroupSnapshot(id, snapshots, Instant.ofEpochSecond(100));
    }

    @Override
    public synchronized void deleteGroupSnapshot(String id, List<String> snapshotIds, Map<String, String> secrets) {
      deleted.add(id + snapshotIds);
    }

    @Override
    public synchronized GroupSnapshot getGroupSnapshot(String id, List<String> snapshotIds,
        Map<String, String> secrets) {
      return byName.values().stream().filter(r -> ("group-" + r.name()).equals(id)).findFirst()
          .map(r -> group(id, r.sourceVolumeIds()))
          .orElseThrow(() -> DriverException.notFound("group snapshot " + id + " does not exist"));
    }
  }

  private final RecordingGroups groups = new RecordingGroups();
  private InProcessCsiServer server;

  @AfterEach
  void stop() throws InterruptedException {
    if (server != null) {
      server.close();
    }
  }

  private InProcessCsiServer serve(FakeControllerProvider controller) {
    server = InProcessCsiServer.start(FakeDriver.controllerMode(controller.withIds(SHAPES)));
    return server;
  }

  private static CreateVolumeGroupSnapshotRequest create(String name, String... volumes) {
    return CreateVolumeGroupSnapshotRequest.newBuilder().setName(name).addAllSourceVolumeIds(List.of(volumes))
        .putSecrets("token", "s3cr3t").build();
  }

  @Test
  void advertisesTheServiceAndItsCapabilityOnlyWhenTheProviderOffersGroups() throws InterruptedException {
    serve(new FakeControllerProvider().withGroupSnapshots(groups));
    assertThat(server.identity().getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance())
        .getCapabilitiesList()).extracting(c -> c.getService().getType())
        .contains(PluginCapability.Service.Type.GROUP_CONTROLLER_SERVICE);
    assertThat(server.groupController().groupControllerGetCapabilities(
        GroupControllerGetCapabilitiesRequest.getDefaultInstance()).getCapabilitiesList())
        .extracting(c -> c.getRpc().getType())
        .containsExactly(GroupControllerServiceCapability.RPC.Type.CREATE_DELETE_GET_VOLUME_GROUP_SNAPSHOT);
    server.close();

    serve(new FakeControllerProvider());
    assertThat(server.identity().getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance())
        .getCapabilitiesList()).extracting(c -> c.getService().getType())
        .doesNotContain(PluginCapability.Service.Type.GROUP_CONTROLLER_SERVICE);
    assertThat(statusOf(() -> server.groupController().createVolumeGroupSnapshot(create("g", "vol-1"))).getCode())
        .isEqualTo(Status.Code.UNIMPLEMENTED);
  }

  @Test
  void createAnswersEveryMemberTaggedWithTheGroupAndReadyOnlyWhenAllAre() {
    serve(new FakeControllerProvider().withGroupSnapshots(groups));
    VolumeGroupSnapshot group = server.groupController().createVolumeGroupSnapshot(create("db", "vol-data", "vol-log"))
        .getGroupSnapshot();
    assertThat(group.getGroupSnapshotId()).isEqualTo("group-db");
    assertThat(group.getSnapshotsList()).extracting(s -> s.getSourceVolumeId()).containsExactly("vol-data", "vol-log");
    assertThat(group.getSnapshotsList()).allSatisfy(s -> assertThat(s.getGroupSnapshotId()).isEqualTo("group-db"));
    assertThat(group.getReadyToUse()).isFalse();
    assertThat(group.getCreationTime().getSeconds()).isEqualTo(100);
    assertThat(groups.byName.get("db").secrets()).containsEntry("token", "s3cr3t");

    groups.ready = true;
    assertThat(server.groupController().getVolumeGroupSnapshot(GetVolumeGroupSnapshotRequest.newBuilder()
        .setGroupSnapshotId("group-db").build()).getGroupSnapshot().getReadyToUse()).isTrue();
  }

  @Test
  void eachCallIsOneLogLineWithoutTheSecretsEvenAtDebug() {
    serve(new FakeControllerProvider().withGroupSnapshots(groups));
    List<String> calls;
    String all;
    try (LogCapture capture = LogCapture.start(Level.DEBUG)) {
      server.groupController().createVolumeGroupSnapshot(create("db", "vol-a", "vol-b"));
      statusOf(() -> server.groupController().createVolumeGroupSnapshot(create("", "vol-a")));
      // At debug the request body is logged too (redacted): the call's line is the one with its duration.
      calls = capture.messages("csi.calls").stream().filter(m -> m.contains(" duration=")).toList();
      all = capture.text();
    }
    assertThat(calls).hasSize(2);
    assertThat(calls.get(0)).contains("CreateVolumeGroupSnapshot", "OK");
    assertThat(calls.get(1)).contains("CreateVolumeGroupSnapshot", "INVALID_ARGUMENT");
    assertThat(all).doesNotContain("s3cr3t").contains("\"token\": \"***redacted***\"");
  }

  @Test
  void sameNameSameMembersIsTheSameGroupOtherMembersAlreadyExists() {
    serve(new FakeControllerProvider().withGroupSnapshots(groups));
    var first = server.groupController().createVolumeGroupSnapshot(create("db", "vol-a", "vol-b"));
    var again = server.groupController().createVolumeGroupSnapshot(create("db", "vol-a", "vol-b"));
    assertThat(again).isEqualTo(first);
    assertThat(statusOf(() -> server.groupController().createVolumeGroupSnapshot(create("db", "vol-a", "vol-c")))
        .getCode()).isEqualTo(Status.Code.ALREADY_EXISTS);
  }

  @Test
  void badRequestsGetTheSpecsCodeNamingTheField() {
    serve(new FakeControllerProvider().withGroupSnapshots(groups));
    var gc = server.groupController();
    Status noName = statusOf(() -> gc.createVolumeGroupSnapshot(create("", "vol-a")));
    assertThat(noName.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(noName.getDescription()).contains("name");
    Status noMembers = statusOf(() -> gc.createVolumeGroupSnapshot(create("g")));
    assertThat(noMembers.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(noMembers.getDescription()).contains("source_volume_ids");
    Status twice = statusOf(() -> gc.createVolumeGroupSnapshot(create("g", "vol-a", "vol-a")));
    assertThat(twice.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(twice.getDescription()).contains("source_volume_ids[1]");
    Status noSuchVolume = statusOf(() -> gc.createVolumeGroupSnapshot(create("g", "vol-a", "../etc")));
    assertThat(noSuchVolume.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(noSuchVolume.getDescription()).contains("source_volume_ids[1]");
    assertThat(groups.byName).isEmpty();

    assertThat(statusOf(() -> gc.getVolumeGroupSnapshot(GetVolumeGroupSnapshotRequest.getDefaultInstance()))
        .getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(statusOf(() -> gc.getVolumeGroupSnapshot(GetVolumeGroupSnapshotRequest.newBuilder()
        .setGroupSnapshotId("not-a-group").build())).getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(statusOf(() -> gc.getVolumeGroupSnapshot(GetVolumeGroupSnapshotRequest.newBuilder()
        .setGroupSnapshotId("group-unknown").build())).getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(statusOf(() -> gc.deleteVolumeGroupSnapshot(DeleteVolumeGroupSnapshotRequest.getDefaultInstance()))
        .getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void deleteOfAnIdThatCannotExistSucceedsWithoutAskingTheProviderAndPassesTheMembersOtherwise() {
    serve(new FakeControllerProvider().withGroupSnapshots(groups));
    server.groupController().deleteVolumeGroupSnapshot(DeleteVolumeGroupSnapshotRequest.newBuilder()
        .setGroupSnapshotId("bogus").build());
    assertThat(groups.deleted).isEmpty();
    server.groupController().deleteVolumeGroupSnapshot(DeleteVolumeGroupSnapshotRequest.newBuilder()
        .setGroupSnapshotId("group-db").addSnapshotIds("snap-1").addSnapshotIds("snap-2").build());
    assertThat(groups.deleted).containsExactly("group-db[snap-1, snap-2]");
  }
}
