package io.awscsi.core.csi;

import static io.awscsi.core.csi.RequestParser.required;

import csi.v1.ControllerExpandVolumeRequest;
import csi.v1.ControllerExpandVolumeResponse;
import csi.v1.ControllerGetCapabilitiesRequest;
import csi.v1.ControllerGetCapabilitiesResponse;
import csi.v1.ControllerGetVolumeRequest;
import csi.v1.ControllerGetVolumeResponse;
import csi.v1.ControllerGrpc;
import csi.v1.ControllerModifyVolumeRequest;
import csi.v1.ControllerModifyVolumeResponse;
import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.ControllerPublishVolumeResponse;
import csi.v1.ControllerServiceCapability;
import csi.v1.ControllerServiceCapability.RPC.Type;
import csi.v1.ControllerUnpublishVolumeRequest;
import csi.v1.ControllerUnpublishVolumeResponse;
import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateSnapshotResponse;
import csi.v1.CreateVolumeRequest;
import csi.v1.CreateVolumeResponse;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.DeleteSnapshotResponse;
import csi.v1.DeleteVolumeRequest;
import csi.v1.DeleteVolumeResponse;
import csi.v1.ListSnapshotsRequest;
import csi.v1.ListSnapshotsResponse;
import csi.v1.ListVolumesRequest;
import csi.v1.ListVolumesResponse;
import csi.v1.ValidateVolumeCapabilitiesRequest;
import csi.v1.ValidateVolumeCapabilitiesResponse;
import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.inflight.InFlightOperations;
import io.awscsi.core.provider.CapabilityCheck;
import io.awscsi.core.provider.ControllerProvider;
import io.awscsi.core.provider.ExpandRequest;
import io.awscsi.core.provider.ExpandResult;
import io.awscsi.core.provider.ModifyRequest;
import io.awscsi.core.provider.Page;
import io.awscsi.core.provider.PublishRequest;
import io.awscsi.core.provider.PublishedVolume;
import io.awscsi.core.provider.Snapshot;
import io.awscsi.core.provider.SnapshotManager;
import io.awscsi.core.provider.SnapshotQuery;
import io.awscsi.core.provider.SnapshotRequest;
import io.awscsi.core.provider.VolumeAttacher;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeExpander;
import io.awscsi.core.provider.VolumeLister;
import io.awscsi.core.provider.VolumeModifier;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Controller service: validates each request, runs the provider part behind the RPC's capability as an operation
 * in flight (one per key; a retry of the same call joins it, {@link InFlightOperations}) and maps the answer. An RPC
 * whose capability is not advertised answers UNIMPLEMENTED.
 */
public final class ControllerService extends ControllerGrpc.ControllerImplBase {

  private final ControllerProvider provider;
  private final InFlightOperations inFlight;
  private final List<ControllerServiceCapability> capabilities;
  private final EdgeIds ids;

  public ControllerService(ControllerProvider provider, InFlightOperations inFlight) {
    this.provider = provider;
    this.inFlight = inFlight;
    this.ids = new EdgeIds(provider.ids());
    this.capabilities = capabilities(provider).stream()
        .map(t -> ControllerServiceCapability.newBuilder()
            .setRpc(ControllerServiceCapability.RPC.newBuilder().setType(t)).build())
        .toList();
  }

  /** Derived from the parts the provider offers, so a capability is advertised exactly when its code exists. */
  static List<Type> capabilities(ControllerProvider provider) {
    List<Type> types = new ArrayList<>();
    types.add(Type.CREATE_DELETE_VOLUME);
    if (provider.provisioner().supportsCloning()) {
      types.add(Type.CLONE_VOLUME);
    }
    provider.attacher().ifPresent(a -> {
      types.add(Type.PUBLISH_UNPUBLISH_VOLUME);
      if (a.supportsReadonly()) {
        types.add(Type.PUBLISH_READONLY);
      }
    });
    provider.snapshots().ifPresent(s -> {
      types.add(Type.CREATE_DELETE_SNAPSHOT);
      types.add(Type.LIST_SNAPSHOTS);
    });
    provider.expander().ifPresent(e -> types.add(Type.EXPAND_VOLUME));
    provider.modifier().ifPresent(m -> types.add(Type.MODIFY_VOLUME));
    provider.lister().ifPresent(l -> {
      types.add(Type.LIST_VOLUMES);
      types.add(Type.LIST_VOLUMES_PUBLISHED_NODES);
      types.add(Type.GET_VOLUME);
    });
    return types;
  }

  @Override
  public void controllerGetCapabilities(ControllerGetCapabilitiesRequest request,
      StreamObserver<ControllerGetCapabilitiesResponse> observer) {
    UnaryCall.run(observer, () -> ControllerGetCapabilitiesResponse.newBuilder().addAllCapabilities(capabilities).build());
  }

  @Override
  public void createVolume(CreateVolumeRequest request, StreamObserver<CreateVolumeResponse> observer) {
    UnaryCall.run(observer, () -> {
      String name = required(request.getName(), "name");
      VolumeRequest volumeRequest = new VolumeRequest(name,
          RequestParser.capacity(request.getCapacityRange(), request.hasCapacityRange(), "capacity_range"),
          RequestParser.capabilities(request.getVolumeCapabilitiesList(), "volume_capabilities"),
          request.getParametersMap(), request.getMutableParamsMap(), request.getSecretsMap(),
          RequestParser.source(request.getVolumeContentSource(), request.hasVolumeContentSource()),
          RequestParser.topology(request.getAccessibilityRequirements(), request.hasAccessibilityRequirements()));
      switch (volumeRequest.source()) {
        case VolumeSource.FromVolume v when !provider.provisioner().supportsCloning() ->
            throw DriverException.invalidArgument("volume_content_source", "cloning is not supported by this driver");
        case VolumeSource.FromSnapshot s when !provider.provisioner().supportsSnapshotSource() ->
            throw DriverException.invalidArgument("volume_content_source",
                "restoring from a snapshot is not supported by this driver");
        case VolumeSource.FromVolume v -> ids.volume(v.volumeId(), "volume_content_source.volume.volume_id");
        case VolumeSource.FromSnapshot s -> ids.snapshot(s.snapshotId(), "volume_content_source.snapshot.snapshot_id");
        case VolumeSource.Empty e -> { }
      }
      return inFlight.run("create/" + name, "CreateVolume", request, () -> CreateVolumeResponse.newBuilder()
          .setVolume(ResponseBuilder.volume(provider.provisioner().createVolume(volumeRequest))).build());
    });
  }

  @Override
  public void deleteVolume(DeleteVolumeRequest request, StreamObserver<DeleteVolumeResponse> observer) {
    UnaryCall.run(observer, () -> {
      String volumeId = required(request.getVolumeId(), "volume_id");
      if (ids.volumeCannotExist(volumeId, "DeleteVolume")) {
        return DeleteVolumeResponse.getDefaultInstance();
      }
      return inFlight.run(volumeId, "DeleteVolume", request, () -> {
        provider.provisioner().deleteVolume(volumeId, request.getSecretsMap());
        inFlight.forgetResults((key, result) -> key.startsWith(volumeId + "/")
            || (result instanceof CreateVolumeResponse created && created.getVolume().getVolumeId().equals(volumeId)));
        return DeleteVolumeResponse.getDefaultInstance();
      });
    });
  }

  @Override
  public void validateVolumeCapabilities(ValidateVolumeCapabilitiesRequest request,
      StreamObserver<ValidateVolumeCapabilitiesResponse> observer) {
    UnaryCall.run(observer, () -> {
      String volumeId = ids.volume(required(request.getVolumeId(), "volume_id"), "volume_id");
      List<VolumeCapability> caps = RequestParser.capabilities(request.getVolumeCapabilitiesList(), "volume_capabilities");
      CapabilityCheck check = provider.provisioner().validateCapabilities(volumeId, caps,
          request.getVolumeContextMap(), request.getParametersMap());
      return switch (check) {
        case CapabilityCheck.Confirmed c -> ValidateVolumeCapabilitiesResponse.newBuilder()
            .setConfirmed(ValidateVolumeCapabilitiesResponse.Confirmed.newBuilder()
                .addAllVolumeCapabilities(request.getVolumeCapabilitiesList())
                .putAllVolumeContext(request.getVolumeContextMap())
                .putAllParameters(request.getParametersMap())
                .putAllMutableParams(request.getMutableParamsMap()))
            .build();
        case CapabilityCheck.Unsupported u -> ValidateVolumeCapabilitiesResponse.newBuilder()
            .setMessage(u.reason()).build();
      };
    });
  }

  @Override
  public void controllerPublishVolume(ControllerPublishVolumeRequest request,
      StreamObserver<ControllerPublishVolumeResponse> observer) {
    UnaryCall.run(observer, () -> {
      VolumeAttacher attacher = part(provider.attacher(), "ControllerPublishVolume");
      String volumeId = required(request.getVolumeId(), "volume_id");
      String nodeId = required(request.getNodeId(), "node_id");
      VolumeCapability cap = RequestParser.requiredCapability(request.getVolumeCapability(),
          request.hasVolumeCapability(), "volume_capability");
      ids.volume(volumeId, "volume_id");
      ids.node(nodeId, "node_id");
      return inFlight.run(volumeId + "/" + nodeId, "ControllerPublishVolume", request, () -> {
        var context = attacher.publish(new PublishRequest(volumeId, nodeId, cap, request.getReadonly(),
            request.getVolumeContextMap(), request.getSecretsMap()));
        return ControllerPublishVolumeResponse.newBuilder().putAllPublishContext(context).build();
      });
    });
  }

  @Override
  public void controllerUnpublishVolume(ControllerUnpublishVolumeRequest request,
      StreamObserver<ControllerUnpublishVolumeResponse> observer) {
    UnaryCall.run(observer, () -> {
      VolumeAttacher attacher = part(provider.attacher(), "ControllerUnpublishVolume");
      String volumeId = required(request.getVolumeId(), "volume_id");
      String nodeId = request.getNodeId().isEmpty() ? "" : required(request.getNodeId(), "node_id");
      if (ids.volumeCannotExist(volumeId, "ControllerUnpublishVolume")
          || (!nodeId.isEmpty() && ids.nodeCannotExist(nodeId, "ControllerUnpublishVolume"))) {
        return ControllerUnpublishVolumeResponse.getDefaultInstance();
      }
      return inFlight.run(volumeId + "/" + nodeId, "ControllerUnpublishVolume", request, () -> {
        attacher.unpublish(volumeId, nodeId, request.getSecretsMap());
        if (nodeId.isEmpty()) { // detached from every node: no publish answer of the volume holds
          inFlight.forgetResults((key, result) -> key.startsWith(volumeId + "/"));
        }
        return ControllerUnpublishVolumeResponse.getDefaultInstance();
      });
    });
  }

  @Override
  public void controllerExpandVolume(ControllerExpandVolumeRequest request,
      StreamObserver<ControllerExpandVolumeResponse> observer) {
    UnaryCall.run(observer, () -> {
      VolumeExpander expander = part(provider.expander(), "ControllerExpandVolume");
      String volumeId = required(request.getVolumeId(), "volume_id");
      if (!request.hasCapacityRange()) {
        throw DriverException.invalidArgument("capacity_range", "is required");
      }
      var capacity = RequestParser.capacity(request.getCapacityRange(), true, "capacity_range");
      if (!capacity.isSet()) {
        throw DriverException.invalidArgument("capacity_range", "needs required_bytes or limit_bytes");
      }
      ids.volume(volumeId, "volume_id");
      VolumeCapability cap = request.hasVolumeCapability()
          ? RequestParser.capability(request.getVolumeCapability(), "volume_capability") : null;
      // No in-flight lease: expand and modify of one volume are merged by the provider's coalescer.
      ExpandResult result = expander.expand(new ExpandRequest(volumeId, capacity, cap, request.getSecretsMap()));
      return ControllerExpandVolumeResponse.newBuilder().setCapacityBytes(result.capacityBytes())
          .setNodeExpansionRequired(result.nodeExpansionRequired()).build();
    });
  }

  @Override
  public void controllerModifyVolume(ControllerModifyVolumeRequest request,
      StreamObserver<ControllerModifyVolumeResponse> observer) {
    UnaryCall.run(observer, () -> {
      VolumeModifier modifier = part(provider.modifier(), "ControllerModifyVolume");
      String volumeId = ids.volume(required(request.getVolumeId(), "volume_id"), "volume_id");
      modifier.modify(new ModifyRequest(volumeId, request.getMutableParamsMap(), request.getSecretsMap()));
      return ControllerModifyVolumeResponse.getDefaultInstance();
    });
  }

  @Override
  public void createSnapshot(CreateSnapshotRequest request, StreamObserver<CreateSnapshotResponse> observer) {
    UnaryCall.run(observer, () -> {
      SnapshotManager snapshots = part(provider.snapshots(), "CreateSnapshot");
      String name = required(request.getName(), "name");
      String source = ids.volume(required(request.getSourceVolumeId(), "source_volume_id"), "source_volume_id");
      return inFlight.run("snapshot/" + name, "CreateSnapshot", request, () -> {
        Snapshot snapshot = snapshots.createSnapshot(new SnapshotRequest(source, name, request.getParametersMap(),
            request.getSecretsMap()));
        return CreateSnapshotResponse.newBuilder().setSnapshot(ResponseBuilder.snapshot(snapshot)).build();
        // A pending snapshot's answer is not kept: the snapshotter repeats CreateSnapshot until ready_to_use, and
        // each repeat must read EC2's state again (a kept "not ready" held readiness back by up to keepResult).
      }, created -> created.getSnapshot().getReadyToUse());
    });
  }

  @Override
  public void deleteSnapshot(DeleteSnapshotRequest request, StreamObserver<DeleteSnapshotResponse> observer) {
    UnaryCall.run(observer, () -> {
      SnapshotManager snapshots = part(provider.snapshots(), "DeleteSnapshot");
      String snapshotId = required(request.getSnapshotId(), "snapshot_id");
      if (ids.snapshotCannotExist(snapshotId, "DeleteSnapshot")) {
        return DeleteSnapshotResponse.getDefaultInstance();
      }
      return inFlight.run(snapshotId, "DeleteSnapshot", request, () -> {
        snapshots.deleteSnapshot(snapshotId, request.getSecretsMap());
        inFlight.forgetResults((key, result) -> result instanceof CreateSnapshotResponse created
            && created.getSnapshot().getSnapshotId().equals(snapshotId));
        return DeleteSnapshotResponse.getDefaultInstance();
      });
    });
  }

  @Override
  public void listSnapshots(ListSnapshotsRequest request, StreamObserver<ListSnapshotsResponse> observer) {
    UnaryCall.run(observer, () -> {
      SnapshotManager snapshots = part(provider.snapshots(), "ListSnapshots");
      int maxEntries = RequestParser.maxEntries(request.getMaxEntries());
      String snapshotId = RequestParser.optional(request.getSnapshotId(), "snapshot_id");
      String sourceVolumeId = RequestParser.optional(request.getSourceVolumeId(), "source_volume_id");
      String token = RequestParser.startingToken(request.getStartingToken());
      // A snapshot or source volume that cannot exist has no snapshots: an empty page, as the spec asks.
      if ((!snapshotId.isEmpty() && ids.snapshotCannotExist(snapshotId, "ListSnapshots"))
          || (!sourceVolumeId.isEmpty() && ids.volumeCannotExist(sourceVolumeId, "ListSnapshots"))) {
        return ListSnapshotsResponse.getDefaultInstance();
      }
      Page<Snapshot> page = snapshots.listSnapshots(new SnapshotQuery(snapshotId, sourceVolumeId, maxEntries, token));
      ListSnapshotsResponse.Builder b = ListSnapshotsResponse.newBuilder().setNextToken(page.nextToken());
      page.entries().forEach(s -> b.addEntries(ListSnapshotsResponse.Entry.newBuilder()
          .setSnapshot(ResponseBuilder.snapshot(s))));
      return b.build();
    });
  }

  @Override
  public void listVolumes(ListVolumesRequest request, StreamObserver<ListVolumesResponse> observer) {
    UnaryCall.run(observer, () -> {
      VolumeLister lister = part(provider.lister(), "ListVolumes");
      Page<PublishedVolume> page = lister.listVolumes(RequestParser.maxEntries(request.getMaxEntries()),
          RequestParser.startingToken(request.getStartingToken()));
      ListVolumesResponse.Builder b = ListVolumesResponse.newBuilder().setNextToken(page.nextToken());
      page.entries().forEach(v -> b.addEntries(ListVolumesResponse.Entry.newBuilder()
          .setVolume(ResponseBuilder.volume(v.volume()))
          .setStatus(ListVolumesResponse.VolumeStatus.newBuilder().addAllPublishedNodeIds(v.publishedNodeIds()))));
      return b.build();
    });
  }

  @Override
  public void controllerGetVolume(ControllerGetVolumeRequest request,
      StreamObserver<ControllerGetVolumeResponse> observer) {
    UnaryCall.run(observer, () -> {
      VolumeLister lister = part(provider.lister(), "ControllerGetVolume");
      PublishedVolume v = lister.getVolume(ids.volume(required(request.getVolumeId(), "volume_id"), "volume_id"));
      return ControllerGetVolumeResponse.newBuilder().setVolume(ResponseBuilder.volume(v.volume()))
          .setStatus(ControllerGetVolumeResponse.VolumeStatus.newBuilder().addAllPublishedNodeIds(v.publishedNodeIds()))
          .build();
    });
  }

  private static <T> T part(Optional<T> part, String rpc) {
    return part.orElseThrow(() -> new DriverException(new DriverError.Unimplemented(
        rpc + " is not offered by this driver (its capability is not advertised)")));
  }
}
