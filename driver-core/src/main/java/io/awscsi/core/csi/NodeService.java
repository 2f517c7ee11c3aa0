package io.awscsi.core.csi;

import static io.awscsi.core.csi.RequestParser.required;

import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeExpandVolumeResponse;
import csi.v1.NodeGetCapabilitiesRequest;
import csi.v1.NodeGetCapabilitiesResponse;
import csi.v1.NodeGetInfoRequest;
import csi.v1.NodeGetInfoResponse;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.NodeGetVolumeStatsResponse;
import csi.v1.NodeGrpc;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodePublishVolumeResponse;
import csi.v1.NodeServiceCapability;
import csi.v1.NodeServiceCapability.RPC.Type;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.NodeStageVolumeResponse;
import csi.v1.NodeUnpublishVolumeRequest;
import csi.v1.NodeUnpublishVolumeResponse;
import csi.v1.NodeUnstageVolumeRequest;
import csi.v1.NodeUnstageVolumeResponse;
import csi.v1.Topology;
import csi.v1.VolumeUsage;
import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.KubeletDirectory;
import io.awscsi.core.host.KubeletDirectory.Resolution;
import io.awscsi.core.inflight.InFlightGuard;
import io.awscsi.core.lifecycle.Decision;
import io.awscsi.core.lifecycle.NodeVolumeTracker;
import io.awscsi.core.lifecycle.Operation;
import io.awscsi.core.lifecycle.VolumeLifecycle;
import io.awscsi.core.provider.NodeExpandRequest;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.provider.NodeProvider;
import io.awscsi.core.provider.NodePublishRequest;
import io.awscsi.core.provider.StageRequest;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeStager;
import io.awscsi.core.provider.VolumeStats;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Node service. Set-up calls (stage, publish) go through the lifecycle state machine, which answers repeats and
 * out-of-order calls; tear-down calls always reach the provider, whose host checks make them idempotent, so a
 * restarted process never skips an unmount it does not remember. Every path a call names is resolved once against the
 * node's kubelet directory before anything else reads it ({@link KubeletDirectory}): a path that leads outside it,
 * through a link in a parent or otherwise, is refused, and the providers only ever see the resolved path.
 */
public final class NodeService extends NodeGrpc.NodeImplBase {

  private final NodeProvider provider;
  private final InFlightGuard inFlight;
  private final NodeVolumeTracker tracker;
  private final EdgeIds ids;
  private final List<NodeServiceCapability> capabilities;
  private final KubeletDirectory kubelet;

  /** @param kubelet the directory every staging, target and volume path of a call must lie below */
  public NodeService(NodeProvider provider, InFlightGuard inFlight, KubeletDirectory kubelet) {
    this.provider = provider;
    this.inFlight = inFlight;
    this.kubelet = kubelet;
    this.ids = new EdgeIds(provider.ids());
    this.tracker = new NodeVolumeTracker(new VolumeLifecycle(provider.stager().isPresent()));
    this.capabilities = capabilities(provider).stream()
        .map(t -> NodeServiceCapability.newBuilder().setRpc(NodeServiceCapability.RPC.newBuilder().setType(t)).build())
        .toList();
  }

  static List<Type> capabilities(NodeProvider provider) {
    List<Type> types = new ArrayList<>();
    provider.stager().ifPresent(s -> types.add(Type.STAGE_UNSTAGE_VOLUME));
    provider.expander().ifPresent(e -> types.add(Type.EXPAND_VOLUME));
    provider.stats().ifPresent(s -> types.add(Type.GET_VOLUME_STATS));
    if (provider.supportsVolumeMountGroup()) {
      types.add(Type.VOLUME_MOUNT_GROUP);
    }
    return types;
  }

  @Override
  public void nodeGetCapabilities(NodeGetCapabilitiesRequest request,
      StreamObserver<NodeGetCapabilitiesResponse> observer) {
    UnaryCall.run(observer, () -> NodeGetCapabilitiesResponse.newBuilder().addAllCapabilities(capabilities).build());
  }

  @Override
  public void nodeGetInfo(NodeGetInfoRequest request, StreamObserver<NodeGetInfoResponse> observer) {
    UnaryCall.run(observer, () -> {
      NodeInfo info = provider.nodeInfo();
      NodeGetInfoResponse.Builder b = NodeGetInfoResponse.newBuilder().setNodeId(info.nodeId())
          .setMaxVolumesPerNode(info.maxVolumesPerNode());
      if (!info.accessibleTopology().isEmpty()) {
        b.setAccessibleTopology(Topology.newBuilder().putAllSegments(info.accessibleTopology()));
      }
      return b.build();
    });
  }

  @Override
  public void nodeStageVolume(NodeStageVolumeRequest request, StreamObserver<NodeStageVolumeResponse> observer) {
    UnaryCall.run(observer, () -> {
      VolumeStager stager = stager("NodeStageVolume");
      String volumeId = required(request.getVolumeId(), "volume_id");
      Path requestedStaging = RequestParser.path(request.getStagingTargetPath(), "staging_target_path");
      VolumeCapability cap = RequestParser.requiredCapability(request.getVolumeCapability(),
          request.hasVolumeCapability(), "volume_capability");
      ids.volume(volumeId, "volume_id");
      Path staging = confined(requestedStaging, "staging_target_path");
      String fingerprint = cap + "|" + request.getPublishContextMap();
      try (var lease = inFlight.acquire(volumeId, "NodeStageVolume")) {
        if (proceed(Operation.NODE_STAGE, volumeId, staging.toString(), fingerprint)) {
          stager.stage(new StageRequest(volumeId, request.getPublishContextMap(), staging, cap,
              request.getVolumeContextMap(), request.getSecretsMap()));
          tracker.succeeded(Operation.NODE_STAGE, volumeId, staging.toString(), fingerprint);
        }
      }
      return NodeStageVolumeResponse.getDefaultInstance();
    });
  }

  @Override
  public void nodeUnstageVolume(NodeUnstageVolumeRequest request, StreamObserver<NodeUnstageVolumeResponse> observer) {
    UnaryCall.run(observer, () -> {
      VolumeStager stager = stager("NodeUnstageVolume");
      String volumeId = required(request.getVolumeId(), "volume_id");
      Path requestedStaging = RequestParser.path(request.getStagingTargetPath(), "staging_target_path");
      if (ids.volumeCannotExist(volumeId, "NodeUnstageVolume")) {
        return NodeUnstageVolumeResponse.getDefaultInstance(); // never staged here: nothing at the path is its
      }
      Path staging = confined(requestedStaging, "staging_target_path");
      try (var lease = inFlight.acquire(volumeId, "NodeUnstageVolume")) {
        rejectIfRefused(Operation.NODE_UNSTAGE, volumeId, staging.toString());
        stager.unstage(volumeId, staging);
        tracker.succeeded(Operation.NODE_UNSTAGE, volumeId, staging.toString(), "");
      }
      return NodeUnstageVolumeResponse.getDefaultInstance();
    });
  }

  @Override
  public void nodePublishVolume(NodePublishVolumeRequest request, StreamObserver<NodePublishVolumeResponse> observer) {
    UnaryCall.run(observer, () -> {
      String volumeId = required(request.getVolumeId(), "volume_id");
      Path requestedTarget = RequestParser.path(request.getTargetPath(), "target_path");
      // The capability is checked before the staging path: csi-sanity sends neither and expects INVALID_ARGUMENT.
      VolumeCapability cap = RequestParser.requiredCapability(request.getVolumeCapability(),
          request.hasVolumeCapability(), "volume_capability");
      if (provider.stager().isPresent() && request.getStagingTargetPath().isEmpty()) {
        // The spec's code for this case ("Staging target path not set"), not INVALID_ARGUMENT.
        throw DriverException.failedPrecondition("staging_target_path is not set for volume " + volumeId
            + ": this driver stages volumes, so NodeStageVolume must succeed first and its path be passed here");
      }
      Path requestedStaging = RequestParser.optionalPath(request.getStagingTargetPath(), "staging_target_path");
      ids.volume(volumeId, "volume_id");
      Path target = confined(requestedTarget, "target_path");
      // A driver without staging ignores the field, so it is not resolved (nor refused) there.
      Path staging = requestedStaging == null || provider.stager().isEmpty() ? requestedStaging
          : confined(requestedStaging, "staging_target_path");
      if (provider.stager().isPresent()) {
        checkApart(target, staging);
      }
      String fingerprint = cap + "|" + request.getReadonly() + "|" + staging + "|" + request.getVolumeContextMap();
      try (var lease = inFlight.acquire(volumeId, "NodePublishVolume")) {
        if (proceed(Operation.NODE_PUBLISH, volumeId, target.toString(), fingerprint)) {
          provider.publisher().publish(new NodePublishRequest(volumeId, request.getPublishContextMap(), staging, target,
              cap, request.getReadonly(), request.getVolumeContextMap(), request.getSecretsMap()));
          tracker.succeeded(Operation.NODE_PUBLISH, volumeId, target.toString(), fingerprint);
        }
      }
      return NodePublishVolumeResponse.getDefaultInstance();
    });
  }

  @Override
  public void nodeUnpublishVolume(NodeUnpublishVolumeRequest request,
      StreamObserver<NodeUnpublishVolumeResponse> observer) {
    UnaryCall.run(observer, () -> {
      String volumeId = required(request.getVolumeId(), "volume_id");
      Path requestedTarget = RequestParser.path(request.getTargetPath(), "target_path");
      if (ids.volumeCannotExist(volumeId, "NodeUnpublishVolume")) {
        return NodeUnpublishVolumeResponse.getDefaultInstance(); // never published here: nothing at the path is its
      }
      Path target = confined(requestedTarget, "target_path");
      tracker.stagedAt(target.toString()).ifPresent(staged -> {
        // Unmounting it would take the staged file system away from every pod the volume is published to.
        throw DriverException.invalidArgument("target_path", target + " is the staging_target_path of volume "
            + staged + ", not a published target; NodeUnstageVolume unmounts it");
      });
      if (kubelet.isStagingPath(target)) {
        // The same after a restart, when this process no longer knows what it staged: the kubelet's layout says it.
        throw DriverException.invalidArgument("target_path", target + " is where the kubelet stages volumes, not a"
            + " published target; NodeUnstageVolume unmounts it");
      }
      try (var lease = inFlight.acquire(volumeId, "NodeUnpublishVolume")) {
        rejectIfRefused(Operation.NODE_UNPUBLISH, volumeId, target.toString());
        provider.publisher().unpublish(volumeId, target);
        tracker.succeeded(Operation.NODE_UNPUBLISH, volumeId, target.toString(), "");
      }
      return NodeUnpublishVolumeResponse.getDefaultInstance();
    });
  }

  @Override
  public void nodeExpandVolume(NodeExpandVolumeRequest request, StreamObserver<NodeExpandVolumeResponse> observer) {
    UnaryCall.run(observer, () -> {
      var expander = provider.expander().orElseThrow(() -> unimplemented("NodeExpandVolume"));
      String volumeId = required(request.getVolumeId(), "volume_id");
      required(request.getVolumePath(), "volume_path");
      ids.volume(volumeId, "volume_id");
      Path volumePath = publishedPath(request.getVolumePath(), volumeId);
      Path requestedStaging = RequestParser.optionalPath(request.getStagingTargetPath(), "staging_target_path");
      Path staging = requestedStaging == null ? null : confined(requestedStaging, "staging_target_path");
      VolumeCapability cap = request.hasVolumeCapability()
          ? RequestParser.capability(request.getVolumeCapability(), "volume_capability") : null;
      var capacity = RequestParser.capacity(request.getCapacityRange(), request.hasCapacityRange(), "capacity_range");
      try (var lease = inFlight.acquire(volumeId, "NodeExpandVolume")) {
        long bytes = expander.expand(new NodeExpandRequest(volumeId, volumePath, staging, capacity, cap));
        return NodeExpandVolumeResponse.newBuilder().setCapacityBytes(bytes).build();
      }
    });
  }

  @Override
  public void nodeGetVolumeStats(NodeGetVolumeStatsRequest request,
      StreamObserver<NodeGetVolumeStatsResponse> observer) {
    UnaryCall.run(observer, () -> {
      var reader = provider.stats().orElseThrow(() -> unimplemented("NodeGetVolumeStats"));
      String volumeId = required(request.getVolumeId(), "volume_id");
      required(request.getVolumePath(), "volume_path");
      ids.volume(volumeId, "volume_id");
      Path volumePath = publishedPath(request.getVolumePath(), volumeId);
      VolumeStats stats = reader.stats(volumeId, volumePath);
      NodeGetVolumeStatsResponse.Builder b = NodeGetVolumeStatsResponse.newBuilder();
      switch (stats) {
        case VolumeStats.FileSystem fs -> {
          b.addUsage(VolumeUsage.newBuilder().setUnit(VolumeUsage.Unit.BYTES).setTotal(fs.totalBytes())
              .setUsed(fs.usedBytes()).setAvailable(fs.availableBytes()));
          b.addUsage(VolumeUsage.newBuilder().setUnit(VolumeUsage.Unit.INODES).setTotal(fs.totalInodes())
              .setUsed(fs.usedInodes()).setAvailable(fs.availableInodes()));
        }
        case VolumeStats.Block bl -> b.addUsage(VolumeUsage.newBuilder().setUnit(VolumeUsage.Unit.BYTES)
            .setTotal(bl.totalBytes()));
        case VolumeStats.Unknown u -> b.addUsage(VolumeUsage.newBuilder().setUnit(VolumeUsage.Unit.UNKNOWN));
      }
      return b.build();
    });
  }

  /**
   * The volume_path of NodeExpandVolume and NodeGetVolumeStats: missing is INVALID_ARGUMENT; a path that is not
   * absolute and clean cannot be a published path of the volume, and the spec's answer for such a path is NOT_FOUND.
   */
  private Path publishedPath(String value, String volumeId) {
    required(value, "volume_path");
    if (!value.startsWith("/") || (value + "/").contains("/../") || (value + "/").contains("/./")) {
      throw DriverException.notFound("volume_path " + value + " is not a published path of volume " + volumeId);
    }
    Path requested = RequestParser.path(value, "volume_path");
    return switch (kubelet.locate(requested)) {
      case Resolution.Inside(Path path) -> path;
      case Resolution.Outside(Path resolved) -> throw DriverException.notFound("volume_path " + requested
          + " is not a published path of volume " + volumeId + ": it leads to " + resolved
          + ", outside the kubelet directory " + kubelet.root());
      case Resolution.LinkAtEnd(Path resolved, String target) -> throw DriverException.notFound("volume_path "
          + requested + " is not a published path of volume " + volumeId + ": it is a symbolic link (to " + target
          + "), which is not followed");
      case Resolution.DanglingParent(Path link) -> throw DriverException.notFound("volume_path " + requested
          + " is not a published path of volume " + volumeId + ": its parent " + link + " is a symbolic link that "
          + "leads nowhere");
      case Resolution.Unresolvable(Path at, String reason) -> throw DriverException.notFound("volume_path "
          + requested + " is not a published path of volume " + volumeId + ": " + at + " cannot be resolved ("
          + reason + ")");
    };
  }

  /**
   * The path to use for a staging or target path: the caller's, resolved once below the kubelet directory. A path
   * that leads outside it is INVALID_ARGUMENT naming the field; a symbolic link as the last component is
   * FAILED_PRECONDITION (the path is the kubelet's, whose state is wrong), as the providers answer for one.
   */
  private Path confined(Path requested, String field) {
    return switch (kubelet.locate(requested)) {
      case Resolution.Inside(Path path) -> path;
      case Resolution.Outside(Path resolved) -> throw DriverException.invalidArgument(field, requested
          + (resolved.equals(requested) ? "" : " leads to " + resolved + " (through a symbolic link in a parent) and")
          + " lies outside the kubelet directory " + kubelet.root() + ", where the node mounts nothing");
      case Resolution.LinkAtEnd(Path resolved, String target) -> throw DriverException.failedPrecondition(field + " "
          + requested + " is a symbolic link (to " + target + "); a mount there would land on whatever it points to,"
          + " so it is not followed");
      case Resolution.DanglingParent(Path link) -> throw DriverException.invalidArgument(field, requested
          + " has a parent " + link + " that is a symbolic link leading nowhere; creating the path would follow it");
      case Resolution.Unresolvable(Path at, String reason) -> throw DriverException.invalidArgument(field,
          requested + " cannot be resolved at " + at + " (" + reason + ")");
    };
  }

  /**
   * A publish's target and staging path are apart: a target equal to the staging path would "publish" without a
   * mount (the staged file system is already there, so the call answered OK with nothing bound), and one inside or
   * around the other would bind a volume into its own staged tree or hide it.
   */
  private static void checkApart(Path target, Path staging) {
    if (staging == null) {
      return;
    }
    String relation = target.equals(staging) ? "is"
        : target.startsWith(staging) ? "lies inside"
        : staging.startsWith(target) ? "contains" : null;
    if (relation != null) {
      throw DriverException.invalidArgument("target_path", target + " " + relation + " the staging_target_path "
          + staging + "; a volume is published at a target apart from where it is staged");
    }
  }

  /** True when the work must be done, false for an idempotent repeat; throws for a refused call. */
  private boolean proceed(Operation op, String volumeId, String path, String fingerprint) {
    return switch (tracker.decide(op, volumeId, path, fingerprint)) {
      case Decision.Proceed p -> true;
      case Decision.AlreadyDone d -> false;
      case Decision.Reject r -> throw new DriverException(r.error());
    };
  }

  private void rejectIfRefused(Operation op, String volumeId, String path) {
    if (tracker.decide(op, volumeId, path, "") instanceof Decision.Reject r) {
      throw new DriverException(r.error());
    }
  }

  private VolumeStager stager(String rpc) {
    Optional<VolumeStager> stager = provider.stager();
    return stager.orElseThrow(() -> unimplemented(rpc));
  }

  private static DriverException unimplemented(String rpc) {
    return new DriverException(new DriverError.Unimplemented(
        rpc + " is not offered by this driver (its capability is not advertised)"));
  }
}
