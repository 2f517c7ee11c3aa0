package io.awscsi.core.csi;

import static io.awscsi.core.testing.FailedCall.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CapacityRange;
import csi.v1.ControllerExpandVolumeRequest;
import csi.v1.ControllerGetVolumeRequest;
import csi.v1.ControllerGrpc.ControllerBlockingStub;
import csi.v1.ControllerModifyVolumeRequest;
import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.ControllerUnpublishVolumeRequest;
import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.ListVolumesRequest;
import csi.v1.ValidateVolumeCapabilitiesRequest;
import csi.v1.VolumeContentSource;
import io.awscsi.core.provider.ExpandResult;
import io.awscsi.core.provider.IdSyntax;
import io.awscsi.core.provider.Page;
import io.awscsi.core.provider.PublishedVolume;
import io.awscsi.core.provider.VolumeLister;
import io.awscsi.core.testing.FakeControllerProvider;
import io.awscsi.core.testing.FakeDriver;
import io.awscsi.core.testing.FakeSnapshotManager;
import io.awscsi.core.testing.FakeVolumeAttacher;
import io.awscsi.core.testing.FakeVolumeProvisioner;
import io.awscsi.core.testing.InProcessCsiServer;
import io.grpc.Status;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The ids of every controller RPC are checked once, where the request enters: an id the provider's {@link IdSyntax}
 * says cannot exist is NOT_FOUND (lookups) or OK (unpublish, delete) and no provider part is called with it.
 */
class EdgeIdsTest {

  /** Ids of this fake driver are "vol-" / "snap-" / "i-" and digits. */
  static final IdSyntax DIGITS = new IdSyntax() {
    @Override
    public Optional<String> volumeIdProblem(String id) {
      return id.matches("vol-\\d+") ? Optional.empty() : Optional.of("a volume id is vol- and digits");
    }

    @Override
    public Optional<String> snapshotIdProblem(String id) {
      return id.matches("snap-\\d+") ? Optional.empty() : Optional.of("a snapshot id is snap- and digits");
    }

    @Override
    public Optional<String> nodeIdProblem(String id) {
      return id.matches("i-\\d+") ? Optional.empty() : Optional.of("a node id is i- and digits");
    }
  };

  private final FakeVolumeProvisioner provisioner = new FakeVolumeProvisioner().withCloning().withSnapshotSource();
  private final FakeVolumeAttacher attacher = new FakeVolumeAttacher(true);
  private final AtomicInteger providerCalls = new AtomicInteger();
  private InProcessCsiServer server;
  private ControllerBlockingStub controller;

  @BeforeEach
  void start() {
    VolumeLister lister = new VolumeLister() {
      @Override
      public Page<PublishedVolume> listVolumes(int maxEntries, String startingToken) {
        providerCalls.incrementAndGet();
        return new Page<>(List.of(), "");
      }

      @Override
      public PublishedVolume getVolume(String volumeId) {
        providerCalls.incrementAndGet();
        throw new AssertionError("not reached with a malformed id");
      }
    };
    FakeControllerProvider provider = new FakeControllerProvider(provisioner).withAttacher(attacher)
        .withExpander(r -> {
          providerCalls.incrementAndGet();
          return new ExpandResult(r.capacity().requiredBytes(), true);
        })
        .withModifier(r -> providerCalls.incrementAndGet())
        .withSnapshots(new FakeSnapshotManager())
        .withLister(lister)
        .withIds(DIGITS);
    server = InProcessCsiServer.start(FakeDriver.controllerMode(provider));
    controller = server.controller();
  }

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
  }

  record Call(String name, Consumer<ControllerBlockingStub> call, String field) {
    @Override
    public String toString() {
      return name;
    }
  }

  static final String BAD_VOLUME = "vol-../../x";

  static Stream<Call> lookupsOfIdsThatCannotExist() {
    CapacityRange gib = CapacityRange.newBuilder().setRequiredBytes(1L << 30).build();
    return Stream.of(
        new Call("CreateVolume cloning vol-../../x", c -> c.createVolume(CreateVolumeRequest.newBuilder()
            .setName("pvc-1").addVolumeCapabilities(ControllerServiceTest.MOUNT)
            .setVolumeContentSource(VolumeContentSource.newBuilder().setVolume(
                VolumeContentSource.VolumeSource.newBuilder().setVolumeId(BAD_VOLUME))).build()),
            "volume_content_source.volume.volume_id"),
        new Call("CreateVolume restoring snap-; rm -rf", c -> c.createVolume(CreateVolumeRequest.newBuilder()
            .setName("pvc-1").addVolumeCapabilities(ControllerServiceTest.MOUNT)
            .setVolumeContentSource(VolumeContentSource.newBuilder().setSnapshot(
                VolumeContentSource.SnapshotSource.newBuilder().setSnapshotId("snap-; rm -rf /"))).build()),
            "volume_content_source.snapshot.snapshot_id"),
        new Call("ValidateVolumeCapabilities", c -> c.validateVolumeCapabilities(ValidateVolumeCapabilitiesRequest
            .newBuilder().setVolumeId(BAD_VOLUME).addVolumeCapabilities(ControllerServiceTest.MOUNT).build()),
            "volume_id"),
        new Call("ControllerPublishVolume of a bad volume", c -> c.controllerPublishVolume(
            ControllerPublishVolumeRequest.newBuilder().setVolumeId(BAD_VOLUME).setNodeId("i-1")
                .setVolumeCapability(ControllerServiceTest.MOUNT).build()), "volume_id"),
        new Call("ControllerPublishVolume to a bad node", c -> c.controllerPublishVolume(
            ControllerPublishVolumeRequest.newBuilder().setVolumeId("vol-1").setNodeId("i-1/../../etc")
                .setVolumeCapability(ControllerServiceTest.MOUNT).build()), "node_id"),
        new Call("ControllerExpandVolume", c -> c.controllerExpandVolume(ControllerExpandVolumeRequest.newBuilder()
            .setVolumeId(BAD_VOLUME).setCapacityRange(gib).build()), "volume_id"),
        new Call("ControllerModifyVolume", c -> c.controllerModifyVolume(ControllerModifyVolumeRequest.newBuilder()
            .setVolumeId(BAD_VOLUME).putMutableParams("iops", "4000").build()), "volume_id"),
        new Call("ControllerGetVolume", c -> c.controllerGetVolume(ControllerGetVolumeRequest.newBuilder()
            .setVolumeId(BAD_VOLUME).build()), "volume_id"),
        new Call("CreateSnapshot of a bad volume", c -> c.createSnapshot(CreateSnapshotRequest.newBuilder()
            .setName("snap-name").setSourceVolumeId(BAD_VOLUME).build()), "source_volume_id"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lookupsOfIdsThatCannotExist")
  void aLookupOfAnIdThatCannotExistIsNotFoundNamingTheFieldWithoutAProviderCall(Call call) {
    Status status = statusOf(() -> call.call().accept(controller));

    assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(status.getDescription()).startsWith(call.field() + ": ").contains("does not exist");
    assertThat(provisioner.createRequests()).isEmpty();
    assertThat(attacher.published()).isEmpty();
    assertThat(providerCalls).hasValue(0);
  }

  @Test
  void unpublishAndDeleteOfIdsThatCannotExistSucceedWithoutAProviderCall() {
    controller.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(BAD_VOLUME).build());
    controller.controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder().setVolumeId(BAD_VOLUME)
        .setNodeId("i-1").build());
    controller.controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder().setVolumeId("vol-1")
        .setNodeId("node/../x").build());
    controller.deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId("snap-*").build());

    assertThat(provisioner.deletedVolumeIds()).isEmpty();
    assertThat(attacher.unpublished()).isEmpty();
  }

  @Test
  void unpublishFromEveryNodeWithAnEmptyNodeIdStillReachesTheAttacher() {
    controller.controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder().setVolumeId("vol-1").build());

    assertThat(attacher.unpublished()).hasSize(1);
  }

  @Test
  void listSnapshotsOfIdsThatCannotExistIsAnEmptyPage() {
    assertThat(controller.listSnapshots(ListSnapshotsRequest.newBuilder().setSnapshotId("snap-x").build())
        .getEntriesList()).isEmpty();
    assertThat(controller.listSnapshots(ListSnapshotsRequest.newBuilder().setSourceVolumeId(BAD_VOLUME).build())
        .getEntriesList()).isEmpty();
  }

  @Test
  void aStartingTokenNoListingCouldHaveReturnedIsAborted() {
    Status status = statusOf(() -> controller.listVolumes(ListVolumesRequest.newBuilder()
        .setStartingToken("tok\nen").build()));
    Status huge = statusOf(() -> controller.listSnapshots(ListSnapshotsRequest.newBuilder()
        .setStartingToken("t".repeat(5000)).build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(status.getDescription()).contains("starting_token");
    assertThat(huge.getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(providerCalls).hasValue(0);
  }

  @Test
  void wellFormedIdsReachTheProvider() {
    controller.controllerPublishVolume(ControllerPublishVolumeRequest.newBuilder().setVolumeId("vol-1")
        .setNodeId("i-1").setVolumeCapability(ControllerServiceTest.MOUNT).build());

    assertThat(attacher.published()).hasSize(1);
  }
}
