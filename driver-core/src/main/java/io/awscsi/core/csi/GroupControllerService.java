package io.awscsi.core.csi;

import static io.awscsi.core.csi.RequestParser.required;

import csi.v1.CreateVolumeGroupSnapshotRequest;
import csi.v1.CreateVolumeGroupSnapshotResponse;
import csi.v1.DeleteVolumeGroupSnapshotRequest;
import csi.v1.DeleteVolumeGroupSnapshotResponse;
import csi.v1.GetVolumeGroupSnapshotRequest;
import csi.v1.GetVolumeGroupSnapshotResponse;
import csi.v1.GroupControllerGetCapabilitiesRequest;
import csi.v1.GroupControllerGetCapabilitiesResponse;
import csi.v1.GroupControllerGrpc;
import csi.v1.GroupControllerServiceCapability;
import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.inflight.InFlightGuard;
import io.awscsi.core.provider.ControllerProvider;
import io.awscsi.core.provider.GroupSnapshot;
import io.awscsi.core.provider.GroupSnapshotManager;
import io.awscsi.core.provider.GroupSnapshotRequest;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The GroupController service (volume group snapshots): validates each request as the Controller service does (the
 * spec's codes, fields named, ids checked at the edge), takes the in-flight lease and calls the provider's
 * {@link GroupSnapshotManager}. Served only when the provider offers one, so its capability is advertised exactly when
 * the code behind it exists; the call log line comes from the server's interceptor like every other RPC's.
 */
public final class GroupControllerService extends GroupControllerGrpc.GroupControllerImplBase {

  private final ControllerProvider provider;
  private final InFlightGuard inFlight;
  private final EdgeIds ids;

  public GroupControllerService(ControllerProvider provider, InFlightGuard inFlight) {
    this.provider = provider;
    this.inFlight = inFlight;
    this.ids = new EdgeIds(provider.ids());
  }

  @Override
  public void groupControllerGetCapabilities(GroupControllerGetCapabilitiesRequest request,
      StreamObserver<GroupControllerGetCapabilitiesResponse> observer) {
    UnaryCall.run(observer, () -> {
      GroupControllerGetCapabilitiesResponse.Builder b = GroupControllerGetCapabilitiesResponse.newBuilder();
      if (provider.groupSnapshots().isPresent()) {
        b.addCapabilities(GroupControllerServiceCapability.newBuilder().setRpc(
            GroupControllerServiceCapability.RPC.newBuilder().setType(
                GroupControllerServiceCapability.RPC.Type.CREATE_DELETE_GET_VOLUME_GROUP_SNAPSHOT)));
      }
      return b.build();
    });
  }

  @Override
  public void createVolumeGroupSnapshot(CreateVolumeGroupSnapshotRequest request,
      StreamObserver<CreateVolumeGroupSnapshotResponse> observer) {
    UnaryCall.run(observer, () -> {
      GroupSnapshotManager groups = manager("CreateVolumeGroupSnapshot");
      String name = required(request.getName(), "name");
      if (request.getSourceVolumeIdsCount() == 0) {
        throw DriverException.invalidArgument("source_volume_ids", "is required (at least one volume)");
      }
      List<String> members = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      for (int i = 0; i < request.getSourceVolumeIdsCount(); i++) {
        String field = "source_volume_ids[" + i + "]";
        String id = ids.volume(required(request.getSourceVolumeIds(i), field), field);
        if (!seen.add(id)) {
          throw DriverException.invalidArgument(field, "volume " + EdgeIds.quoted(id) + " is listed twice");
        }
        members.add(id);
      }
      try (var lease = inFlight.acquire("groupsnapshot/" + name, "CreateVolumeGroupSnapshot")) {
        GroupSnapshot group = groups.createGroupSnapshot(new GroupSnapshotRequest(name, members,
            request.getParametersMap(), request.getSecretsMap()));
        return CreateVolumeGroupSnapshotResponse.newBuilder()
            .setGroupSnapshot(ResponseBuilder.groupSnapshot(group)).build();
      }
    });
  }

  @Override
  public void deleteVolumeGroupSnapshot(DeleteVolumeGroupSnapshotRequest request,
      StreamObserver<DeleteVolumeGroupSnapshotResponse> observer) {
    UnaryCall.run(observer, () -> {
      GroupSnapshotManager groups = manager("DeleteVolumeGroupSnapshot");
      String groupId = required(request.getGroupSnapshotId(), "group_snapshot_id");
      if (ids.groupSnapshotCannotExist(groupId, "DeleteVolumeGroupSnapshot")) {
        return DeleteVolumeGroupSnapshotResponse.getDefaultInstance();
      }
      List<String> members = snapshotIds(request.getSnapshotIdsList());
      try (var lease = inFlight.acquire(groupId, "DeleteVolumeGroupSnapshot")) {
        groups.deleteGroupSnapshot(groupId, members, request.getSecretsMap());
      }
      return DeleteVolumeGroupSnapshotResponse.getDefaultInstance();
    });
  }

  @Override
  public void getVolumeGroupSnapshot(GetVolumeGroupSnapshotRequest request,
      StreamObserver<GetVolumeGroupSnapshotResponse> observer) {
    UnaryCall.run(observer, () -> {
      GroupSnapshotManager groups = manager("GetVolumeGroupSnapshot");
      String groupId = ids.groupSnapshot(required(request.getGroupSnapshotId(), "group_snapshot_id"),
          "group_snapshot_id");
      List<String> members = snapshotIds(request.getSnapshotIdsList());
      GroupSnapshot group = groups.getGroupSnapshot(groupId, members, request.getSecretsMap());
      return GetVolumeGroupSnapshotResponse.newBuilder().setGroupSnapshot(ResponseBuilder.groupSnapshot(group)).build();
    });
  }

  /**
   * The members the CO names: each bounded and free of control characters. One that cannot be a snapshot id of this
   * driver cannot be a member either, which the provider's comparison then reports as a mismatch.
   */
  private static List<String> snapshotIds(List<String> given) {
    List<String> members = new ArrayList<>(given.size());
    for (int i = 0; i < given.size(); i++) {
      members.add(required(given.get(i), "snapshot_ids[" + i + "]"));
    }
    return members;
  }

  private GroupSnapshotManager manager(String rpc) {
    return provider.groupSnapshots().orElseThrow(() -> new DriverException(new DriverError.Unimplemented(
        rpc + " is not offered by this driver (its capability is not advertised)")));
  }
}
