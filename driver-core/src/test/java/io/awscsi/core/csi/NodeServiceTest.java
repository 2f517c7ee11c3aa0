package io.awscsi.core.csi;

import static io.awscsi.core.testing.FailedCall.statusOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.tuple;

import com.google.common.util.concurrent.ListenableFuture;
import csi.v1.ControllerGetCapabilitiesRequest;
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeGetCapabilitiesRequest;
import csi.v1.NodeGetInfoRequest;
import csi.v1.NodeGetInfoResponse;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.NodeGrpc.NodeBlockingStub;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodeServiceCapability;
import csi.v1.NodeServiceCapability.RPC.Type;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.NodeStageVolumeResponse;
import csi.v1.NodeUnpublishVolumeRequest;
import csi.v1.NodeUnstageVolumeRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeUsage;
import io.awscsi.core.provider.IdSyntax;
import io.awscsi.core.provider.VolumeStats;
import io.awscsi.core.testing.CallGate;
import io.awscsi.core.testing.FakeControllerProvider;
import io.awscsi.core.testing.FakeDriver;
import io.awscsi.core.testing.FakeNodeProvider;
import io.awscsi.core.testing.FakeVolumePublisher;
import io.awscsi.core.testing.FakeVolumeStager;
import io.awscsi.core.testing.InProcessCsiServer;
import io.awscsi.core.host.KubeletDirectory;
import io.awscsi.core.metrics.MetricsRegistry;
import io.grpc.Status;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeServiceTest {

  private static final VolumeCapability EXT4 = ControllerServiceTest.MOUNT;
  private static final VolumeCapability XFS = EXT4.toBuilder()
      .setMount(VolumeCapability.MountVolume.newBuilder().setFsType("xfs")).build();
  private static final String VOL = "vol-0123456789abcdef0";
  private static final String STAGING = "/var/lib/kubelet/plugins/kubernetes.io/csi/fake/abc/globalmount";
  private static final String TARGET = "/var/lib/kubelet/pods/p1/volumes/kubernetes.io~csi/pv1/mount";
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final FakeVolumePublisher publisher = new FakeVolumePublisher();
  private final FakeVolumeStager stager = new FakeVolumeStager();
  private InProcessCsiServer server;

  @AfterEach
  void stop() throws InterruptedException {
    if (server != null) {
      server.close();
    }
  }

  private FakeNodeProvider everyPart() {
    return new FakeNodeProvider(publisher).withStager(stager).withExpander(r -> 8L << 30)
        .withStats((id, path) -> new VolumeStats.FileSystem(100, 40, 60, 10, 4, 6)).withVolumeMountGroup();
  }

  private NodeBlockingStub node(FakeNodeProvider provider) {
    server = InProcessCsiServer.start(FakeDriver.nodeMode(provider));
    return server.node();
  }

  private static NodeStageVolumeRequest stage(VolumeCapability cap) {
    return NodeStageVolumeRequest.newBuilder().setVolumeId(VOL).setStagingTargetPath(STAGING)
        .setVolumeCapability(cap).putPublishContext("devicePath", "/dev/xvdba").build();
  }

  private static NodePublishVolumeRequest publish(String target, boolean readonly) {
    return NodePublishVolumeRequest.newBuilder().setVolumeId(VOL).setStagingTargetPath(STAGING)
        .setTargetPath(target).setVolumeCapability(EXT4).setReadonly(readonly).build();
  }

  private static NodeUnpublishVolumeRequest unpublish(String target) {
    return NodeUnpublishVolumeRequest.newBuilder().setVolumeId(VOL).setTargetPath(target).build();
  }

  private static NodeUnstageVolumeRequest unstage() {
    return NodeUnstageVolumeRequest.newBuilder().setVolumeId(VOL).setStagingTargetPath(STAGING).build();
  }

  record Invalid(String name, Consumer<NodeBlockingStub> call, String field) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Invalid> invalidRequests() {
    NodeStageVolumeRequest stage = stage(EXT4);
    NodePublishVolumeRequest publish = publish(TARGET, false);
    return Stream.of(
        new Invalid("NodeStage without volume_id", n -> n.nodeStageVolume(stage.toBuilder().clearVolumeId().build()),
            "volume_id"),
        new Invalid("NodeStage without staging_target_path",
            n -> n.nodeStageVolume(stage.toBuilder().clearStagingTargetPath().build()), "staging_target_path"),
        new Invalid("NodeStage with a relative staging_target_path",
            n -> n.nodeStageVolume(stage.toBuilder().setStagingTargetPath("var/lib/stage").build()),
            "staging_target_path"),
        new Invalid("NodeStage with '..' in staging_target_path",
            n -> n.nodeStageVolume(stage.toBuilder().setStagingTargetPath("/var/lib/../../etc").build()),
            "staging_target_path"),
        new Invalid("NodeStage with '.' in staging_target_path",
            n -> n.nodeStageVolume(stage.toBuilder().setStagingTargetPath("/var/./stage").build()),
            "staging_target_path"),
        new Invalid("NodeStage without volume_capability",
            n -> n.nodeStageVolume(stage.toBuilder().clearVolumeCapability().build()), "volume_capability"),
        new Invalid("NodeStage with a capability without access type",
            n -> n.nodeStageVolume(stage.toBuilder().setVolumeCapability(EXT4.toBuilder().clearMount()).build()),
            "volume_capability.access_type"),
        new Invalid("NodeUnstage without volume_id",
            n -> n.nodeUnstageVolume(unstage().toBuilder().clearVolumeId().build()), "volume_id"),
        new Invalid("NodeUnstage without staging_target_path",
            n -> n.nodeUnstageVolume(unstage().toBuilder().clearStagingTargetPath().build()), "staging_target_path"),
        new Invalid("NodeUnstage with '..' in staging_target_path",
            n -> n.nodeUnstageVolume(unstage().toBuilder().setStagingTargetPath("/a/../b").build()),
            "staging_target_path"),
        new Invalid("NodePublish without volume_id",
            n -> n.nodePublishVolume(publish.toBuilder().clearVolumeId().build()), "volume_id"),
        new Invalid("NodePublish without target_path",
            n -> n.nodePublishVolume(publish.toBuilder().clearTargetPath().build()), "target_path"),
        new Invalid("NodePublish with a relative target_path",
            n -> n.nodePublishVolume(publish.toBuilder().setTargetPath("pods/p1/mount").build()), "target_path"),
        new Invalid("NodePublish with '..' in target_path",
            n -> n.nodePublishVolume(publish.toBuilder().setTargetPath("/var/lib/kubelet/../../etc").build()),
            "target_path"),
        new Invalid("NodePublish with a relative staging_target_path",
            n -> n.nodePublishVolume(publish.toBuilder().setStagingTargetPath("stage").build()), "staging_target_path"),
        new Invalid("NodePublish without volume_capability (and without staging path, as csi-sanity sends it)",
            n -> n.nodePublishVolume(publish.toBuilder().clearVolumeCapability().clearStagingTargetPath().build()),
            "volume_capability"),
        new Invalid("NodeUnpublish without volume_id",
            n -> n.nodeUnpublishVolume(unpublish(TARGET).toBuilder().clearVolumeId().build()), "volume_id"),
        new Invalid("NodeUnpublish without target_path",
            n -> n.nodeUnpublishVolume(unpublish(TARGET).toBuilder().clearTargetPath().build()), "target_path"),
        new Invalid("NodeGetVolumeStats without volume_id", n -> n.nodeGetVolumeStats(
            NodeGetVolumeStatsRequest.newBuilder().setVolumePath(TARGET).build()), "volume_id"),
        new Invalid("NodeGetVolumeStats without volume_path", n -> n.nodeGetVolumeStats(
            NodeGetVolumeStatsRequest.newBuilder().setVolumeId(VOL).build()), "volume_path"),
        new Invalid("NodeExpandVolume without volume_id", n -> n.nodeExpandVolume(
            NodeExpandVolumeRequest.newBuilder().setVolumePath(TARGET).build()), "volume_id"),
        new Invalid("NodeExpandVolume without volume_path", n -> n.nodeExpandVolume(
            NodeExpandVolumeRequest.newBuilder().setVolumeId(VOL).build()), "volume_path"));
  }

  /** The spec answers NOT_FOUND for a volume_path that is not published; a relative path never is (csi-sanity). */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"some/path", "/a/../b", "/a/./b"})
  void anUnpublishableVolumePathIsNotFound(String path) {
    NodeBlockingStub node = node(everyPart());

    assertThat(statusOf(() -> node.nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder().setVolumeId(VOL)
        .setVolumePath(path).build())).getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(statusOf(() -> node.nodeExpandVolume(NodeExpandVolumeRequest.newBuilder().setVolumeId(VOL)
        .setVolumePath(path).build())).getCode()).isEqualTo(Status.Code.NOT_FOUND);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidRequests")
  void invalidRequestsAreRefusedNamingTheFieldBeforeAnyProviderCall(Invalid invalid) {
    NodeBlockingStub node = node(everyPart());

    Status status = statusOf(() -> invalid.call().accept(node));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).startsWith(invalid.field() + ": ");
    assertThat(stager.staged()).isEmpty();
    assertThat(stager.unstaged()).isEmpty();
    assertThat(publisher.published()).isEmpty();
    assertThat(publisher.unpublished()).isEmpty();
  }

  @Test
  void publishWithoutAStagingPathIsFailedPreconditionWhenTheDriverStages() {
    NodeBlockingStub node = node(everyPart());

    Status status = statusOf(() -> node.nodePublishVolume(publish(TARGET, false).toBuilder()
        .clearStagingTargetPath().build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(status.getDescription()).contains("staging_target_path", VOL, "NodeStageVolume");
    assertThat(publisher.published()).isEmpty();
  }

  @Test
  void publishWithoutAStagingPathIsFineWhenTheDriverDoesNotStage() {
    NodeBlockingStub node = node(new FakeNodeProvider(publisher));

    node.nodePublishVolume(publish(TARGET, false).toBuilder().clearStagingTargetPath().build());

    assertThat(publisher.published()).singleElement().satisfies(p -> {
      assertThat(p.stagingPath()).isNull();
      assertThat(p.targetPath()).isEqualTo(Path.of(TARGET));
    });
  }

  static Stream<Arguments> capabilityTable() {
    Supplier<FakeNodeProvider> bare = FakeNodeProvider::new;
    return Stream.of(
        Arguments.of("publisher only", bare.get(), List.of()),
        Arguments.of("stager", bare.get().withStager(new FakeVolumeStager()), List.of(Type.STAGE_UNSTAGE_VOLUME)),
        Arguments.of("expander", bare.get().withExpander(r -> 0), List.of(Type.EXPAND_VOLUME)),
        Arguments.of("stats", bare.get().withStats((id, p) -> new VolumeStats.Unknown()),
            List.of(Type.GET_VOLUME_STATS)),
        Arguments.of("volume mount group", bare.get().withVolumeMountGroup(), List.of(Type.VOLUME_MOUNT_GROUP)),
        Arguments.of("every part", bare.get().withStager(new FakeVolumeStager()).withExpander(r -> 0)
                .withStats((id, p) -> new VolumeStats.Unknown()).withVolumeMountGroup(),
            List.of(Type.STAGE_UNSTAGE_VOLUME, Type.EXPAND_VOLUME, Type.GET_VOLUME_STATS, Type.VOLUME_MOUNT_GROUP)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("capabilityTable")
  void advertisesExactlyTheCapabilitiesOfThePartsPresent(String parts, FakeNodeProvider provider,
      List<Type> expected) {
    List<Type> advertised = node(provider).nodeGetCapabilities(NodeGetCapabilitiesRequest.getDefaultInstance())
        .getCapabilitiesList().stream().map(NodeServiceCapability::getRpc).map(NodeServiceCapability.RPC::getType)
        .toList();

    assertThat(advertised).containsExactlyInAnyOrderElementsOf(expected);
  }

  record Unoffered(String rpc, Consumer<NodeBlockingStub> call) {
    @Override
    public String toString() {
      return rpc;
    }
  }

  static Stream<Unoffered> rpcsWithoutTheirPart() {
    return Stream.of(
        new Unoffered("NodeStageVolume", n -> n.nodeStageVolume(stage(EXT4))),
        new Unoffered("NodeUnstageVolume", n -> n.nodeUnstageVolume(unstage())),
        new Unoffered("NodeExpandVolume", n -> n.nodeExpandVolume(
            NodeExpandVolumeRequest.newBuilder().setVolumeId(VOL).setVolumePath(TARGET).build())),
        new Unoffered("NodeGetVolumeStats", n -> n.nodeGetVolumeStats(
            NodeGetVolumeStatsRequest.newBuilder().setVolumeId(VOL).setVolumePath(TARGET).build())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rpcsWithoutTheirPart")
  void anRpcWithoutItsPartIsUnimplemented(Unoffered rpc) {
    NodeBlockingStub node = node(new FakeNodeProvider(publisher));

    Status status = statusOf(() -> rpc.call().accept(node));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(status.getDescription()).contains(rpc.rpc());
  }

  @Test
  void controllerCallsToANodeOnlyProcessAreUnimplemented() {
    node(everyPart());

    Status status = statusOf(() -> server.controller()
        .controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance()));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
  }

  @Test
  void nodeCallsToAControllerOnlyProcessAreUnimplemented() {
    server = InProcessCsiServer.start(FakeDriver.controllerMode(new FakeControllerProvider()));

    Status status = statusOf(() -> server.node().nodeGetCapabilities(NodeGetCapabilitiesRequest.getDefaultInstance()));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
  }

  @Test
  void nodeInfoComesFromTheProvider() {
    NodeGetInfoResponse info = node(everyPart()).nodeGetInfo(NodeGetInfoRequest.getDefaultInstance());

    assertThat(info.getNodeId()).isEqualTo(FakeNodeProvider.NODE.nodeId());
    assertThat(info.getMaxVolumesPerNode()).isEqualTo(25);
    assertThat(info.getAccessibleTopology().getSegmentsMap())
        .containsExactlyEntriesOf(FakeNodeProvider.NODE.accessibleTopology());
  }

  @Test
  void fileSystemStatsReportBytesAndInodes() {
    var stats = node(everyPart()).nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder().setVolumeId(VOL)
        .setVolumePath(TARGET).build());

    assertThat(stats.getUsageList()).extracting(VolumeUsage::getUnit, VolumeUsage::getTotal, VolumeUsage::getUsed,
            VolumeUsage::getAvailable)
        .containsExactly(
            tuple(VolumeUsage.Unit.BYTES, 100L, 40L, 60L),
            tuple(VolumeUsage.Unit.INODES, 10L, 4L, 6L));
  }

  @Test
  void aRepeatedIdenticalStageIsOkWithoutASecondProviderCall() {
    NodeBlockingStub node = node(everyPart());

    node.nodeStageVolume(stage(EXT4));
    node.nodeStageVolume(stage(EXT4));

    assertThat(stager.staged()).hasSize(1);
  }

  @Test
  void aConflictingRestageIsAlreadyExistsWithoutAProviderCall() {
    NodeBlockingStub node = node(everyPart());
    node.nodeStageVolume(stage(EXT4));

    Status status = statusOf(() -> node.nodeStageVolume(stage(XFS)));

    assertThat(status.getCode()).isEqualTo(Status.Code.ALREADY_EXISTS);
    assertThat(status.getDescription()).contains(VOL);
    assertThat(stager.staged()).hasSize(1);
  }

  @Test
  void publishIsIdempotentPerTargetAndAConflictingRepublishIsAlreadyExists() {
    NodeBlockingStub node = node(everyPart());
    node.nodeStageVolume(stage(EXT4));

    node.nodePublishVolume(publish(TARGET, false));
    node.nodePublishVolume(publish(TARGET, false));
    Status readonlyAgain = statusOf(() -> node.nodePublishVolume(publish(TARGET, true)));
    node.nodePublishVolume(publish(TARGET + "2", true));

    assertThat(readonlyAgain.getCode()).isEqualTo(Status.Code.ALREADY_EXISTS);
    assertThat(publisher.published()).extracting(p -> p.targetPath().toString()).containsExactly(TARGET, TARGET + "2");
  }

  @Test
  void unstageWhilePublishedIsFailedPreconditionAndReachesNoProvider() {
    NodeBlockingStub node = node(everyPart());
    node.nodeStageVolume(stage(EXT4));
    node.nodePublishVolume(publish(TARGET, false));

    Status status = statusOf(() -> node.nodeUnstageVolume(unstage()));

    assertThat(status.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(stager.unstaged()).isEmpty();

    node.nodeUnpublishVolume(unpublish(TARGET));
    node.nodeUnstageVolume(unstage());
    assertThat(publisher.unpublished()).containsExactly(Path.of(TARGET));
    assertThat(stager.unstaged()).containsExactly(Path.of(STAGING));
  }

  @Test
  void publishBeforeStageIsFailedPrecondition() {
    NodeBlockingStub node = node(everyPart());
    node.nodeStageVolume(stage(EXT4));
    node.nodeUnstageVolume(unstage());

    Status status = statusOf(() -> node.nodePublishVolume(publish(TARGET, false)));

    assertThat(status.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(status.getDescription()).contains(VOL, "NodeStageVolume first");
    assertThat(publisher.published()).isEmpty();
  }

  @Test
  void teardownOfAnUnknownVolumeAlwaysReachesTheProvider() {
    NodeBlockingStub node = node(everyPart());

    node.nodeUnpublishVolume(unpublish(TARGET));
    node.nodeUnpublishVolume(unpublish(TARGET));
    node.nodeUnstageVolume(unstage());
    node.nodeUnstageVolume(unstage());

    assertThat(publisher.unpublished()).hasSize(2);
    assertThat(stager.unstaged()).hasSize(2);
  }

  @Test
  void aSecondCallOnAVolumeWhileOneRunsIsAborted() throws Exception {
    CallGate gate = CallGate.closed();
    stager.holdAt(gate);
    NodeBlockingStub node = node(everyPart());
    ListenableFuture<NodeStageVolumeResponse> first = server.nodeAsync().nodeStageVolume(stage(EXT4));
    assertThat(gate.awaitEntered(WAIT)).isTrue();

    Status restage = statusOf(() -> node.nodeStageVolume(stage(EXT4)));
    Status publishMeanwhile = statusOf(() -> node.nodePublishVolume(publish(TARGET, false)));
    Status unstageMeanwhile = statusOf(() -> node.nodeUnstageVolume(unstage()));
    node.nodeUnpublishVolume(unpublish(TARGET).toBuilder().setVolumeId("vol-other").build());
    gate.open();

    assertThat(List.of(restage.getCode(), publishMeanwhile.getCode(), unstageMeanwhile.getCode()))
        .containsOnly(Status.Code.ABORTED);
    assertThat(restage.getDescription()).contains(VOL, "in progress");
    first.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(stager.staged()).hasSize(1);
    node.nodePublishVolume(publish(TARGET, false));
    assertThat(publisher.published()).hasSize(1);
  }

  /** Ids of the shape "vol-" and 17 hex digits only, as the EBS node's. */
  private static final IdSyntax VOL_IDS = new IdSyntax() {
    @Override
    public java.util.Optional<String> volumeIdProblem(String id) {
      return id.matches("vol-[0-9a-f]{17}") ? java.util.Optional.empty() : java.util.Optional.of("not vol-<17 hex>");
    }
  };

  @Test
  void anIdThatCannotBeTheDriversIsNotFoundAtOnceAndNeverReachesAPart() {
    NodeBlockingStub node = node(everyPart().withIds(VOL_IDS));
    String bad = "vol-../../x";

    for (Consumer<NodeBlockingStub> call : List.<Consumer<NodeBlockingStub>>of(
        n -> n.nodeStageVolume(stage(EXT4).toBuilder().setVolumeId(bad).build()),
        n -> n.nodePublishVolume(publish(TARGET, false).toBuilder().setVolumeId(bad).build()),
        n -> n.nodeExpandVolume(NodeExpandVolumeRequest.newBuilder().setVolumeId(bad).setVolumePath(TARGET).build()),
        n -> n.nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder().setVolumeId(bad).setVolumePath(TARGET)
            .build()))) {
      Status status = statusOf(() -> call.accept(node));
      assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
      assertThat(status.getDescription()).contains("volume_id").contains("\"vol-../../x\"");
    }
    node.nodeUnpublishVolume(unpublish(TARGET).toBuilder().setVolumeId(bad).build());
    node.nodeUnstageVolume(unstage().toBuilder().setVolumeId(bad).build());

    assertThat(stager.staged()).isEmpty();
    assertThat(stager.unstaged()).isEmpty();
    assertThat(publisher.published()).isEmpty();
    assertThat(publisher.unpublished()).isEmpty();
  }

  // ---- confinement below the kubelet directory (issue 24 item 4) -------------------------------------------------

  private NodeBlockingStub confinedNode(FakeNodeProvider provider, Path kubelet) throws IOException {
    server = InProcessCsiServer.start(FakeDriver.nodeMode(provider), new MetricsRegistry(),
        KubeletDirectory.resolve(kubelet));
    return server.node();
  }

  /**
   * Every path field of every node call, led outside the kubelet directory through a linked parent: refused with
   * the field named (INVALID_ARGUMENT; NOT_FOUND for volume_path) before any provider part is called.
   */
  @Test
  void pathsLeadingOutsideTheKubeletDirectoryNeverReachTheProvider(@TempDir Path tmp)
      throws IOException {
    Path kubelet = Files.createDirectories(tmp.resolve("kubelet"));
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Path evil = Files.createSymbolicLink(kubelet.resolve("evil"), outside);
    String staging = kubelet.resolve("staging/globalmount").toString();
    String target = kubelet.resolve("pods/p1/mount").toString();
    String bad = evil.resolve("x").toString();
    FakeNodeProvider provider = everyPart();
    NodeBlockingStub n = confinedNode(provider, kubelet);
    record Call(String field, Status.Code code, Consumer<NodeBlockingStub> call) {}
    List<Call> calls = List.of(
        new Call("staging_target_path", Status.Code.INVALID_ARGUMENT, c -> c.nodeStageVolume(stage(EXT4).toBuilder()
            .setStagingTargetPath(bad).build())),
        new Call("target_path", Status.Code.INVALID_ARGUMENT, c -> c.nodePublishVolume(publish(target, false)
            .toBuilder().setStagingTargetPath(staging).setTargetPath(bad).build())),
        new Call("staging_target_path", Status.Code.INVALID_ARGUMENT, c -> c.nodePublishVolume(publish(target, false)
            .toBuilder().setStagingTargetPath(bad).build())),
        new Call("target_path", Status.Code.INVALID_ARGUMENT, c -> c.nodeUnpublishVolume(unpublish(bad))),
        new Call("staging_target_path", Status.Code.INVALID_ARGUMENT, c -> c.nodeUnstageVolume(unstage().toBuilder()
            .setStagingTargetPath(bad).build())),
        new Call("volume_path", Status.Code.NOT_FOUND, c -> c.nodeGetVolumeStats(NodeGetVolumeStatsRequest
            .newBuilder().setVolumeId(VOL).setVolumePath(bad).build())),
        new Call("volume_path", Status.Code.NOT_FOUND, c -> c.nodeExpandVolume(NodeExpandVolumeRequest.newBuilder()
            .setVolumeId(VOL).setVolumePath(bad).build())),
        new Call("staging_target_path", Status.Code.INVALID_ARGUMENT, c -> c.nodeExpandVolume(
            NodeExpandVolumeRequest.newBuilder().setVolumeId(VOL).setVolumePath(target).setStagingTargetPath(bad)
                .build())));
    for (Call call : calls) {
      Status status = Status.fromThrowable(catchThrowable(() -> call.call().accept(n)));
      assertThat(status.getCode()).as(call.field()).isEqualTo(call.code());
      assertThat(status.getDescription()).contains(call.field()).contains(outside.toRealPath().toString());
    }
    assertThat(stager.staged()).isEmpty();
    assertThat(stager.unstaged()).isEmpty();
    assertThat(publisher.published()).isEmpty();
    assertThat(publisher.unpublished()).isEmpty();
    assertThat(outside.resolve("x")).doesNotExist();
  }

  /** The providers see only resolved paths: a link inside the kubelet directory is followed once, here. */
  @Test
  void theProviderGetsTheResolvedPath(@TempDir Path tmp) throws IOException {
    Path kubelet = Files.createDirectories(tmp.resolve("kubelet")).toRealPath();
    Path pods = Files.createDirectories(kubelet.resolve("pods"));
    Path alias = Files.createSymbolicLink(kubelet.resolve("alias"), pods);
    Path link = Files.createSymbolicLink(tmp.resolve("kubelet-link"), kubelet);
    NodeBlockingStub n = confinedNode(everyPart(), link);
    String staging = link.resolve("staging/globalmount").toString();
    n.nodeStageVolume(stage(EXT4).toBuilder().setStagingTargetPath(staging).build());
    n.nodePublishVolume(publish(alias.resolve("p1/mount").toString(), false).toBuilder()
        .setStagingTargetPath(staging).build());
    assertThat(stager.staged().getFirst().stagingPath()).isEqualTo(kubelet.resolve("staging/globalmount"));
    assertThat(publisher.published().getFirst().targetPath()).isEqualTo(pods.resolve("p1/mount"));
    assertThat(publisher.published().getFirst().stagingPath()).isEqualTo(kubelet.resolve("staging/globalmount"));
  }

  /**
   * A publish onto the staging path, inside it or around it -> INVALID_ARGUMENT naming target_path; an unpublish of
   * the path a volume is staged at -> INVALID_ARGUMENT naming target_path; neither reaches the publisher.
   */
  @Test
  void theStagingPathIsNeverATarget(@TempDir Path tmp) throws IOException {
    Path kubelet = Files.createDirectories(tmp.resolve("kubelet")).toRealPath();
    Path staging = kubelet.resolve("plugins/x/globalmount");
    NodeBlockingStub n = confinedNode(everyPart(), kubelet);
    n.nodeStageVolume(stage(EXT4).toBuilder().setStagingTargetPath(staging.toString()).build());
    for (Path target : List.of(staging, staging.resolve("inside"), staging.getParent())) {
      Status status = Status.fromThrowable(catchThrowable(() -> n.nodePublishVolume(
          publish(target.toString(), false).toBuilder().setStagingTargetPath(staging.toString()).build())));
      assertThat(status.getCode()).as(target.toString()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(status.getDescription()).contains("target_path");
    }
    Status status = Status.fromThrowable(catchThrowable(() -> n.nodeUnpublishVolume(
        unpublish(staging.toString()))));
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("target_path").contains("staging_target_path of volume " + VOL);
    assertThat(publisher.published()).isEmpty();
    assertThat(publisher.unpublished()).isEmpty();
  }

  /**
   * After a restart the process knows nothing it staged; an unpublish of a path in the kubelet's staging layout is
   * still refused (INVALID_ARGUMENT naming target_path), and never reaches the publisher.
   */
  @Test
  void theKubeletsStagingPathIsNeverUnpublishedEvenByAFreshProcess(@TempDir Path tmp) throws IOException {
    Path kubelet = Files.createDirectories(tmp.resolve("kubelet")).toRealPath();
    NodeBlockingStub n = confinedNode(everyPart(), kubelet);
    for (String staging : List.of("plugins/kubernetes.io/csi/ebs.csi.aws.com/0a1b/globalmount",
        "plugins/kubernetes.io/csi/volumeDevices/staging/pvc-1")) {
      Status status = Status.fromThrowable(catchThrowable(() -> n.nodeUnpublishVolume(
          unpublish(kubelet.resolve(staging).toString()))));
      assertThat(status.getCode()).as(staging).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(status.getDescription()).contains("target_path").contains("where the kubelet stages volumes");
    }
    n.nodeUnpublishVolume(unpublish(kubelet.resolve("pods/uid/volumes/kubernetes.io~csi/pvc-1/mount").toString()));
    assertThat(publisher.unpublished()).hasSize(1);
  }
}
