package io.awscsi.core.csi;

import static io.awscsi.core.testing.FailedCall.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.ListenableFuture;
import csi.v1.CapacityRange;
import csi.v1.ControllerExpandVolumeRequest;
import csi.v1.ControllerGetCapabilitiesRequest;
import csi.v1.ControllerGetVolumeRequest;
import csi.v1.ControllerGrpc.ControllerBlockingStub;
import csi.v1.ControllerModifyVolumeRequest;
import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.ControllerServiceCapability;
import csi.v1.ControllerServiceCapability.RPC.Type;
import csi.v1.ControllerUnpublishVolumeRequest;
import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.CreateVolumeResponse;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.GetCapacityRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.ListVolumesRequest;
import csi.v1.ValidateVolumeCapabilitiesRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeContentSource;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.ExpandResult;
import io.awscsi.core.provider.Page;
import io.awscsi.core.provider.PublishRequest;
import io.awscsi.core.provider.PublishedVolume;
import io.awscsi.core.provider.VolumeLister;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.testing.CallGate;
import io.awscsi.core.testing.FakeControllerProvider;
import io.awscsi.core.testing.FakeDriver;
import io.awscsi.core.testing.FakeSnapshotManager;
import io.awscsi.core.testing.FakeVolumeAttacher;
import io.awscsi.core.testing.FakeVolumeProvisioner;
import io.awscsi.core.testing.InProcessCsiServer;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ControllerServiceTest {

  static final VolumeCapability MOUNT = VolumeCapability.newBuilder()
      .setAccessMode(VolumeCapability.AccessMode.newBuilder()
          .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
      .setMount(VolumeCapability.MountVolume.newBuilder().setFsType("ext4"))
      .build();
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final FakeVolumeProvisioner provisioner = new FakeVolumeProvisioner();
  private final FakeVolumeAttacher attacher = new FakeVolumeAttacher(true);
  private InProcessCsiServer server;

  @AfterEach
  void stop() throws InterruptedException {
    if (server != null) {
      server.close();
    }
  }

  /** A lister that knows no volume; enough to make its RPCs reachable. */
  static final VolumeLister EMPTY_LISTER = new VolumeLister() {
    @Override
    public Page<PublishedVolume> listVolumes(int maxEntries, String startingToken) {
      return new Page<>(List.of(), "");
    }

    @Override
    public PublishedVolume getVolume(String volumeId) {
      throw DriverException.notFound("volume " + volumeId + " does not exist");
    }
  };

  private FakeControllerProvider everyPart() {
    return new FakeControllerProvider(provisioner)
        .withAttacher(attacher)
        .withExpander(r -> new ExpandResult(r.capacity().requiredBytes(), true))
        .withModifier(r -> { })
        .withSnapshots(new FakeSnapshotManager())
        .withLister(EMPTY_LISTER);
  }

  private ControllerBlockingStub controller(FakeControllerProvider provider) {
    server = InProcessCsiServer.start(FakeDriver.controllerMode(provider));
    return server.controller();
  }

  private static CreateVolumeRequest.Builder createVolume(String name) {
    return CreateVolumeRequest.newBuilder().setName(name).addVolumeCapabilities(MOUNT);
  }

  record Invalid(String name, Consumer<ControllerBlockingStub> call, String field) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Invalid> invalidRequests() {
    VolumeCapability noMode = MOUNT.toBuilder().clearAccessMode().build();
    VolumeCapability noType = MOUNT.toBuilder().clearMount().build();
    return Stream.of(
        new Invalid("CreateVolume without name", c -> c.createVolume(createVolume("").build()), "name"),
        new Invalid("CreateVolume with a blank name", c -> c.createVolume(createVolume("  ").build()), "name"),
        new Invalid("CreateVolume with a control character in the name",
            c -> c.createVolume(createVolume("pvc-\n1").build()), "name"),
        new Invalid("CreateVolume with a 1025-character name",
            c -> c.createVolume(createVolume("p".repeat(1025)).build()), "name"),
        new Invalid("CreateVolume without capabilities",
            c -> c.createVolume(CreateVolumeRequest.newBuilder().setName("pvc-1").build()), "volume_capabilities"),
        new Invalid("CreateVolume with a capability without access mode",
            c -> c.createVolume(CreateVolumeRequest.newBuilder().setName("pvc-1").addVolumeCapabilities(noMode)
                .build()),
            "volume_capabilities[0].access_mode"),
        new Invalid("CreateVolume with a second capability without access type",
            c -> c.createVolume(createVolume("pvc-1").addVolumeCapabilities(noType).build()),
            "volume_capabilities[1].access_type"),
        new Invalid("CreateVolume with negative capacity", c -> c.createVolume(createVolume("pvc-1")
            .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(-1)).build()),
            "capacity_range.required_bytes"),
        new Invalid("CreateVolume with negative limit", c -> c.createVolume(createVolume("pvc-1")
            .setCapacityRange(CapacityRange.newBuilder().setLimitBytes(Long.MIN_VALUE)).build()),
            "capacity_range.limit_bytes"),
        new Invalid("ControllerExpandVolume with an empty capacity_range", c -> c.controllerExpandVolume(
            ControllerExpandVolumeRequest.newBuilder().setVolumeId("vol-1")
                .setCapacityRange(CapacityRange.getDefaultInstance()).build()), "capacity_range"),
        new Invalid("CreateVolume from a snapshot without id", c -> c.createVolume(createVolume("pvc-1")
            .setVolumeContentSource(VolumeContentSource.newBuilder()
                .setSnapshot(VolumeContentSource.SnapshotSource.getDefaultInstance())).build()),
            "volume_content_source.snapshot.snapshot_id"),
        new Invalid("CreateVolume from an empty content source", c -> c.createVolume(createVolume("pvc-1")
            .setVolumeContentSource(VolumeContentSource.getDefaultInstance()).build()), "volume_content_source"),
        new Invalid("CreateVolume cloning when cloning is not offered", c -> c.createVolume(createVolume("pvc-1")
            .setVolumeContentSource(VolumeContentSource.newBuilder()
                .setVolume(VolumeContentSource.VolumeSource.newBuilder().setVolumeId("vol-src"))).build()),
            "volume_content_source"),
        new Invalid("DeleteVolume without volume_id",
            c -> c.deleteVolume(DeleteVolumeRequest.getDefaultInstance()), "volume_id"),
        new Invalid("ValidateVolumeCapabilities without volume_id", c -> c.validateVolumeCapabilities(
            ValidateVolumeCapabilitiesRequest.newBuilder().addVolumeCapabilities(MOUNT).build()), "volume_id"),
        new Invalid("ValidateVolumeCapabilities without capabilities", c -> c.validateVolumeCapabilities(
            ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId("vol-1").build()), "volume_capabilities"),
        new Invalid("ControllerPublishVolume without volume_id", c -> c.controllerPublishVolume(
            ControllerPublishVolumeRequest.newBuilder().setNodeId("i-1").setVolumeCapability(MOUNT).build()),
            "volume_id"),
        new Invalid("ControllerPublishVolume without node_id", c -> c.controllerPublishVolume(
            ControllerPublishVolumeRequest.newBuilder().setVolumeId("vol-1").setVolumeCapability(MOUNT).build()),
            "node_id"),
        new Invalid("ControllerPublishVolume without volume_capability", c -> c.controllerPublishVolume(
            ControllerPublishVolumeRequest.newBuilder().setVolumeId("vol-1").setNodeId("i-1").build()),
            "volume_capability"),
        new Invalid("ControllerUnpublishVolume without volume_id", c -> c.controllerUnpublishVolume(
            ControllerUnpublishVolumeRequest.newBuilder().setNodeId("i-1").build()), "volume_id"),
        new Invalid("ControllerExpandVolume without volume_id", c -> c.controllerExpandVolume(
            ControllerExpandVolumeRequest.newBuilder().setCapacityRange(CapacityRange.newBuilder()
                .setRequiredBytes(1 << 30)).build()), "volume_id"),
        new Invalid("ControllerExpandVolume without capacity_range", c -> c.controllerExpandVolume(
            ControllerExpandVolumeRequest.newBuilder().setVolumeId("vol-1").build()), "capacity_range"),
        new Invalid("ControllerModifyVolume without volume_id", c -> c.controllerModifyVolume(
            ControllerModifyVolumeRequest.newBuilder().putMutableParams("iops", "4000").build()), "volume_id"),
        new Invalid("CreateSnapshot without name", c -> c.createSnapshot(
            CreateSnapshotRequest.newBuilder().setSourceVolumeId("vol-1").build()), "name"),
        new Invalid("CreateSnapshot without source_volume_id", c -> c.createSnapshot(
            CreateSnapshotRequest.newBuilder().setName("snapshot-1").build()), "source_volume_id"),
        new Invalid("DeleteSnapshot without snapshot_id",
            c -> c.deleteSnapshot(DeleteSnapshotRequest.getDefaultInstance()), "snapshot_id"),
        new Invalid("ListVolumes with negative max_entries",
            c -> c.listVolumes(ListVolumesRequest.newBuilder().setMaxEntries(-1).build()), "max_entries"),
        new Invalid("ListSnapshots with negative max_entries",
            c -> c.listSnapshots(ListSnapshotsRequest.newBuilder().setMaxEntries(-1).build()), "max_entries"),
        new Invalid("ControllerGetVolume without volume_id",
            c -> c.controllerGetVolume(ControllerGetVolumeRequest.getDefaultInstance()), "volume_id"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidRequests")
  void invalidRequestsAreRefusedNamingTheFieldBeforeAnyProviderCall(Invalid invalid) {
    ControllerBlockingStub controller = controller(everyPart());

    Status status = statusOf(() -> invalid.call().accept(controller));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).startsWith(invalid.field() + ": ");
    assertThat(provisioner.createRequests()).isEmpty();
    assertThat(provisioner.deletedVolumeIds()).isEmpty();
    assertThat(attacher.published()).isEmpty();
    assertThat(attacher.unpublished()).isEmpty();
  }

  @Test
  void aRequiredCapacityAboveTheLimitIsOutOfRange() {
    ControllerBlockingStub controller = controller(everyPart());

    Status status = statusOf(() -> controller.createVolume(createVolume("pvc-1")
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(2L << 30).setLimitBytes(1L << 30)).build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.OUT_OF_RANGE);
    assertThat(status.getDescription()).contains("capacity_range", "exceeds limit_bytes");
    assertThat(provisioner.createRequests()).isEmpty();
  }

  @Test
  void theProviderGetsTheValidatedRequestAndItsAnswerIsMapped() {
    ControllerBlockingStub controller = controller(everyPart());

    CreateVolumeResponse response = controller.createVolume(createVolume("pvc-1")
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(4L << 30))
        .putParameters("type", "gp3").build());
    var published = controller.controllerPublishVolume(ControllerPublishVolumeRequest.newBuilder()
        .setVolumeId(response.getVolume().getVolumeId()).setNodeId("i-1").setVolumeCapability(MOUNT)
        .setReadonly(true).build());

    assertThat(response.getVolume().getVolumeId()).isEqualTo("vol-pvc-1");
    assertThat(response.getVolume().getCapacityBytes()).isEqualTo(4L << 30);
    assertThat(provisioner.createRequests()).singleElement().satisfies(r -> {
      assertThat(r.parameters()).containsEntry("type", "gp3");
      assertThat(r.capabilities()).singleElement().satisfies(c -> assertThat(c.fsType()).isEqualTo("ext4"));
    });
    assertThat(published.getPublishContextMap()).containsEntry("devicePath", FakeVolumeAttacher.DEVICE_PATH);
    assertThat(attacher.published()).singleElement().satisfies(p -> assertThat(p.readonly()).isTrue());
  }

  @Test
  void aSameNameWithOtherCapacityIsAlreadyExists() {
    ControllerBlockingStub controller = controller(everyPart());
    controller.createVolume(createVolume("pvc-1").build());

    Status status = statusOf(() -> controller.createVolume(createVolume("pvc-1")
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(8L << 30)).build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.ALREADY_EXISTS);
  }

  static Stream<Arguments> capabilityTable() {
    Supplier<FakeControllerProvider> bare = FakeControllerProvider::new;
    return Stream.of(
        Arguments.of("provisioner only", bare.get(), List.of(Type.CREATE_DELETE_VOLUME)),
        Arguments.of("cloning provisioner", new FakeControllerProvider(new FakeVolumeProvisioner().withCloning()),
            List.of(Type.CREATE_DELETE_VOLUME, Type.CLONE_VOLUME)),
        Arguments.of("attacher", bare.get().withAttacher(new FakeVolumeAttacher(false)),
            List.of(Type.CREATE_DELETE_VOLUME, Type.PUBLISH_UNPUBLISH_VOLUME)),
        Arguments.of("readonly attacher", bare.get().withAttacher(new FakeVolumeAttacher(true)),
            List.of(Type.CREATE_DELETE_VOLUME, Type.PUBLISH_UNPUBLISH_VOLUME, Type.PUBLISH_READONLY)),
        Arguments.of("snapshots", bare.get().withSnapshots(new FakeSnapshotManager()),
            List.of(Type.CREATE_DELETE_VOLUME, Type.CREATE_DELETE_SNAPSHOT, Type.LIST_SNAPSHOTS)),
        Arguments.of("expander", bare.get().withExpander(r -> new ExpandResult(0, false)),
            List.of(Type.CREATE_DELETE_VOLUME, Type.EXPAND_VOLUME)),
        Arguments.of("modifier", bare.get().withModifier(r -> { }),
            List.of(Type.CREATE_DELETE_VOLUME, Type.MODIFY_VOLUME)),
        Arguments.of("lister", bare.get().withLister(EMPTY_LISTER),
            List.of(Type.CREATE_DELETE_VOLUME, Type.LIST_VOLUMES, Type.LIST_VOLUMES_PUBLISHED_NODES, Type.GET_VOLUME)),
        Arguments.of("every part", new FakeControllerProvider(new FakeVolumeProvisioner().withCloning())
                .withAttacher(new FakeVolumeAttacher(true)).withSnapshots(new FakeSnapshotManager())
                .withExpander(r -> new ExpandResult(0, false)).withModifier(r -> { }).withLister(EMPTY_LISTER),
            List.of(Type.CREATE_DELETE_VOLUME, Type.CLONE_VOLUME, Type.PUBLISH_UNPUBLISH_VOLUME, Type.PUBLISH_READONLY,
                Type.CREATE_DELETE_SNAPSHOT, Type.LIST_SNAPSHOTS, Type.EXPAND_VOLUME, Type.MODIFY_VOLUME,
                Type.LIST_VOLUMES, Type.LIST_VOLUMES_PUBLISHED_NODES, Type.GET_VOLUME)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("capabilityTable")
  void advertisesExactlyTheCapabilitiesOfThePartsPresent(String parts, FakeControllerProvider provider,
      List<Type> expected) {
    List<Type> advertised = controller(provider)
        .controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
        .getCapabilitiesList().stream().map(ControllerServiceCapability::getRpc)
        .map(ControllerServiceCapability.RPC::getType).toList();

    assertThat(advertised).containsExactlyInAnyOrderElementsOf(expected);
  }

  record Unoffered(String rpc, Consumer<ControllerBlockingStub> call) {
    @Override
    public String toString() {
      return rpc;
    }
  }

  static Stream<Unoffered> rpcsWithoutTheirPart() {
    return Stream.of(
        new Unoffered("ControllerPublishVolume", c -> c.controllerPublishVolume(ControllerPublishVolumeRequest
            .newBuilder().setVolumeId("vol-1").setNodeId("i-1").setVolumeCapability(MOUNT).build())),
        new Unoffered("ControllerUnpublishVolume", c -> c.controllerUnpublishVolume(
            ControllerUnpublishVolumeRequest.newBuilder().setVolumeId("vol-1").setNodeId("i-1").build())),
        new Unoffered("ControllerExpandVolume", c -> c.controllerExpandVolume(ControllerExpandVolumeRequest
            .newBuilder().setVolumeId("vol-1").setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(1))
            .build())),
        new Unoffered("ControllerModifyVolume", c -> c.controllerModifyVolume(
            ControllerModifyVolumeRequest.newBuilder().setVolumeId("vol-1").build())),
        new Unoffered("CreateSnapshot", c -> c.createSnapshot(
            CreateSnapshotRequest.newBuilder().setName("s").setSourceVolumeId("vol-1").build())),
        new Unoffered("DeleteSnapshot", c -> c.deleteSnapshot(
            DeleteSnapshotRequest.newBuilder().setSnapshotId("snap-1").build())),
        new Unoffered("ListSnapshots", c -> c.listSnapshots(ListSnapshotsRequest.getDefaultInstance())),
        new Unoffered("ListVolumes", c -> c.listVolumes(ListVolumesRequest.getDefaultInstance())),
        new Unoffered("ControllerGetVolume", c -> c.controllerGetVolume(
            ControllerGetVolumeRequest.newBuilder().setVolumeId("vol-1").build())),
        new Unoffered("GetCapacity", c -> c.getCapacity(GetCapacityRequest.getDefaultInstance())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rpcsWithoutTheirPart")
  void anRpcWithoutItsPartIsUnimplemented(Unoffered rpc) {
    ControllerBlockingStub controller = controller(new FakeControllerProvider(provisioner));

    Status status = statusOf(() -> rpc.call().accept(controller));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(status.getDescription()).contains(rpc.rpc());
  }

  @Test
  void aRetryOfACreateJoinsTheRunningWorkAndACreateWithOtherArgumentsIsAborted() throws Exception {
    CallGate gate = CallGate.closed();
    provisioner.holdAt(gate);
    ControllerBlockingStub controller = controller(everyPart());
    ListenableFuture<CreateVolumeResponse> first = server.controllerAsync().createVolume(createVolume("pvc-1").build());
    assertThat(gate.awaitEntered(WAIT)).isTrue();

    ListenableFuture<CreateVolumeResponse> otherName = server.controllerAsync()
        .createVolume(createVolume("pvc-2").build());
    Status timedOut = statusOf(() -> controller.withDeadlineAfter(500, TimeUnit.MILLISECONDS)
        .createVolume(createVolume("pvc-1").build()));
    Status otherArguments = statusOf(() -> controller.createVolume(createVolume("pvc-1")
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(5L << 30)).build()));
    ListenableFuture<CreateVolumeResponse> retry = server.controllerAsync().createVolume(createVolume("pvc-1").build());
    gate.open();

    assertThat(timedOut.getCode()).as("answered by the driver before the caller's deadline")
        .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(timedOut.getDescription()).contains("create/pvc-1", "the work continues");
    assertThat(otherArguments.getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(otherArguments.getDescription()).contains("create/pvc-1", "in progress");
    assertThat(first.get(WAIT.toSeconds(), TimeUnit.SECONDS).getVolume().getVolumeId()).isEqualTo("vol-pvc-1");
    assertThat(retry.get(WAIT.toSeconds(), TimeUnit.SECONDS).getVolume().getVolumeId()).isEqualTo("vol-pvc-1");
    assertThat(otherName.get(WAIT.toSeconds(), TimeUnit.SECONDS).getVolume().getVolumeId()).isEqualTo("vol-pvc-2");
    assertThat(provisioner.createRequests()).extracting(VolumeRequest::name)
        .as("the retries joined the first call's work").containsExactlyInAnyOrder("pvc-1", "pvc-2");
  }

  @Test
  void aRepeatedCreateSnapshotReadsTheSnapshotAgainUntilItIsReadyToUse() {
    FakeSnapshotManager snapshots = new FakeSnapshotManager().pendingFor(2);
    ControllerBlockingStub controller = controller(everyPart().withSnapshots(snapshots));
    CreateSnapshotRequest create = CreateSnapshotRequest.newBuilder().setName("snapshot-1")
        .setSourceVolumeId("vol-1").build();

    // The snapshotter repeats CreateSnapshot to learn when the snapshot is ready: no repeat may be answered from a
    // kept "not ready" while EC2 already says completed.
    assertThat(controller.createSnapshot(create).getSnapshot().getReadyToUse()).isFalse();
    assertThat(controller.createSnapshot(create).getSnapshot().getReadyToUse()).isFalse();
    assertThat(controller.createSnapshot(create).getSnapshot().getReadyToUse()).isTrue();
    assertThat(controller.createSnapshot(create).getSnapshot().getReadyToUse()).isTrue();
    assertThat(snapshots.createCalls()).as("each pending answer read again; the ready one kept").isEqualTo(3);
  }

  @Test
  void aCreateAfterTheVolumeWasDeletedIsNotAnsweredFromTheKeptResult() {
    ControllerBlockingStub controller = controller(everyPart());
    ControllerPublishVolumeRequest publish = ControllerPublishVolumeRequest.newBuilder().setVolumeId("vol-pvc-1")
        .setNodeId("i-1").setVolumeCapability(MOUNT).build();
    String volumeId = controller.createVolume(createVolume("pvc-1").build()).getVolume().getVolumeId();
    controller.controllerPublishVolume(publish);
    controller.createVolume(createVolume("pvc-1").build());
    assertThat(provisioner.createRequests()).as("a repeat while the answer is kept").hasSize(1);

    controller.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(volumeId).build());
    controller.createVolume(createVolume("pvc-1").build());
    controller.controllerPublishVolume(publish);

    assertThat(provisioner.createRequests()).as("the delete made the kept answer stale").hasSize(2);
    assertThat(attacher.published()).as("so were the volume's publishes").hasSize(2);
  }

  @Test
  void publishIsGuardedPerVolumeAndNode() throws Exception {
    CallGate gate = CallGate.closed();
    attacher.holdAt(gate);
    ControllerBlockingStub controller = controller(everyPart());
    ControllerPublishVolumeRequest toNode1 = ControllerPublishVolumeRequest.newBuilder().setVolumeId("vol-1")
        .setNodeId("i-1").setVolumeCapability(MOUNT).build();
    var first = server.controllerAsync().controllerPublishVolume(toNode1);
    assertThat(gate.awaitEntered(WAIT)).isTrue();

    var sameNode = server.controllerAsync().controllerPublishVolume(toNode1);
    Status unpublishSameNode = statusOf(() -> controller.controllerUnpublishVolume(
        ControllerUnpublishVolumeRequest.newBuilder().setVolumeId("vol-1").setNodeId("i-1").build()));
    var otherNode = server.controllerAsync().controllerPublishVolume(toNode1.toBuilder().setNodeId("i-2").build());
    gate.open();

    assertThat(unpublishSameNode.getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(first.get(WAIT.toSeconds(), TimeUnit.SECONDS).getPublishContextMap()).isNotEmpty();
    assertThat(sameNode.get(WAIT.toSeconds(), TimeUnit.SECONDS).getPublishContextMap()).as("the retry joined")
        .isEqualTo(first.get().getPublishContextMap());
    // The other node's answer first: until it is in, its publish may not have reached the attacher yet.
    assertThat(otherNode.get(WAIT.toSeconds(), TimeUnit.SECONDS).getPublishContextMap()).isNotEmpty();
    assertThat(attacher.published()).extracting(PublishRequest::nodeId).containsExactlyInAnyOrder("i-1", "i-2");
  }
}
