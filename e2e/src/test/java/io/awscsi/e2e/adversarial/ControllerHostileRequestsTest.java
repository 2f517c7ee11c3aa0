package io.awscsi.e2e.adversarial;

import static io.awscsi.e2e.adversarial.ControllerSupport.GIB;
import static io.awscsi.e2e.adversarial.ControllerSupport.MOUNT;
import static io.awscsi.e2e.adversarial.ControllerSupport.createVolume;
import static io.awscsi.e2e.adversarial.ControllerSupport.efsVolume;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CapacityRange;
import csi.v1.ControllerGrpc;
import csi.v1.ControllerModifyVolumeRequest;
import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.GetCapacityRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.ListVolumesRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeCapability.AccessMode.Mode;
import io.awscsi.e2e.adversarial.ControllerSupport.Timed;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.grpc.Status;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests a hostile or buggy caller sends to the EBS and EFS controllers, beyond what the issue lists: every one is
 * answered within its deadline with the spec's code for caller input, never INTERNAL or UNKNOWN.
 */
@Tag("integration")
class ControllerHostileRequestsTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  private static DriverProcess ebs;
  private static DriverProcess efs;

  @BeforeAll
  static void start() {
    ebs = FX.start(Driver.EBS, DriverFixture.Mode.CONTROLLER);
    efs = FX.start(Driver.EFS, DriverFixture.Mode.CONTROLLER);
  }

  record Hostile(String name, Function<ControllerGrpc.ControllerBlockingStub, ?> call, Set<Status.Code> expected) {
    Hostile(String name, Function<ControllerGrpc.ControllerBlockingStub, ?> call, Status.Code expected) {
      this(name, call, Set.of(expected));
    }

    @Override
    public String toString() {
      return name + " -> " + expected;
    }
  }

  static Map<String, String> manyParameters() {
    Map<String, String> many = new HashMap<>();
    for (int i = 0; i < 500; i++) {
      many.put("tagSpecification_" + i, "k" + i + "=v");
    }
    return many;
  }

  static Stream<Hostile> ebsRequests() {
    VolumeCapability reader = CsiRequests.mount("ext4", Mode.MULTI_NODE_READER_ONLY);
    CapacityRange gib = CapacityRange.newBuilder().setRequiredBytes(GIB).build();
    return Stream.of(
        new Hostile("CreateVolume with an unknown parameter", c -> c.createVolume(createVolume("pvc-h1")
            .putParameters("iopz", "3000").build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume type gp9", c -> c.createVolume(createVolume("pvc-h2")
            .putParameters("type", "gp9").build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume iops 2^31", c -> c.createVolume(createVolume("pvc-h3")
            .putParameters("iops", "2147483648").build()), Status.Code.INVALID_ARGUMENT),
        // Upstream parses numbers with strconv.ParseInt(v, 10, 32): "-1" parses (and is ignored), "1e3" does not.
        new Hostile("CreateVolume throughput 1e3", c -> c.createVolume(createVolume("pvc-h4")
            .putParameters("throughput", "1e3").build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume MULTI_NODE_READER_ONLY", c -> c.createVolume(CreateVolumeRequest.newBuilder()
            .setName("pvc-h5").addVolumeCapabilities(reader).build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume 1025-character name", c -> c.createVolume(createVolume("p".repeat(1025))
            .build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume name with NUL", c -> c.createVolume(createVolume("pvc-\u0000").build()),
            Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume 500 tag parameters", c -> c.createVolume(createVolume("pvc-h6")
            .setCapacityRange(gib).putAllParameters(manyParameters()).build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume unknown mutable parameter", c -> c.createVolume(createVolume("pvc-h7")
            .putMutableParams("color", "red").build()), Status.Code.INVALID_ARGUMENT),
        // Upstream matches the tagSpecification prefix case-sensitively (an empty kmsKeyId is "not set" there).
        new Hostile("CreateVolume TagSpecification_1", c -> c.createVolume(createVolume("pvc-h8")
            .putParameters("TagSpecification_1", "a=b").build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("ControllerPublishVolume MULTI_NODE_READER_ONLY", c -> c.controllerPublishVolume(
            ControllerPublishVolumeRequest.newBuilder().setVolumeId("vol-0123456789abcdef0").setNodeId(FX.nodeId())
                .setVolumeCapability(reader).build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("ControllerModifyVolume unknown key", c -> c.controllerModifyVolume(
            ControllerModifyVolumeRequest.newBuilder().setVolumeId("vol-0123456789abcdef0").putMutableParams(
                "colour", "blue").build()), Status.Code.NOT_FOUND),
        new Hostile("CreateSnapshot of an unknown volume", c -> c.createSnapshot(CreateSnapshotRequest.newBuilder()
            .setName("snap-h1").setSourceVolumeId("vol-0123456789abcdef0").build()), Status.Code.NOT_FOUND),
        new Hostile("ListVolumes max_entries 2^31-1", c -> c.listVolumes(ListVolumesRequest.newBuilder()
            .setMaxEntries(Integer.MAX_VALUE).build()), Status.Code.OK),
        new Hostile("ListSnapshots max_entries 1", c -> c.listSnapshots(ListSnapshotsRequest.newBuilder()
            .setMaxEntries(1).build()), Status.Code.OK),
        new Hostile("GetCapacity", c -> c.getCapacity(GetCapacityRequest.getDefaultInstance()),
            Status.Code.UNIMPLEMENTED));
  }

  @ParameterizedTest(name = "EBS {0}")
  @MethodSource("ebsRequests")
  void ebsAnswersHostileRequestsWithTheSpecsCode(Hostile hostile) {
    answered(ebs, hostile);
  }

  static Stream<Hostile> efsRequests() {
    Map<String, String> ok = Map.of("provisioningMode", "efs-ap", "fileSystemId", "fs-0123456789abcdef0",
        "directoryPerms", "700");
    return Stream.of(
        new Hostile("CreateVolume without provisioningMode", c -> c.createVolume(efsVolume("pvc-e1")
            .putParameters("fileSystemId", "fs-0123abcd").build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume fileSystemId ../../", c -> c.createVolume(efsVolume("pvc-e2")
            .putAllParameters(withParameter(ok, "fileSystemId", "../../etc")).build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume basePath with ..", c -> c.createVolume(efsVolume("pvc-e3")
            .putAllParameters(withParameter(ok, "basePath", "/a/../../b")).build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume directoryPerms 8888", c -> c.createVolume(efsVolume("pvc-e4")
            .putAllParameters(withParameter(ok, "directoryPerms", "8888")).build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume gidRangeStart > End", c -> c.createVolume(efsVolume("pvc-e5")
            .putAllParameters(withParameter(withParameter(ok, "gidRangeStart", "2000"), "gidRangeEnd", "1000"))
            .build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume uid 2^32", c -> c.createVolume(efsVolume("pvc-e6")
            .putAllParameters(withParameter(ok, "uid", "4294967296")).build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume block", c -> c.createVolume(CreateVolumeRequest.newBuilder().setName("pvc-e7")
            .putAllParameters(ok).addVolumeCapabilities(CsiRequests.block(Mode.SINGLE_NODE_WRITER)).build()),
            Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume fsType ext4", c -> c.createVolume(createVolume("pvc-e8").putAllParameters(ok)
            .build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume unknown file system", c -> c.createVolume(efsVolume("pvc-e9")
            .putAllParameters(ok).build()), Status.Code.INVALID_ARGUMENT),
        new Hostile("CreateVolume subPathPattern ${.PVC.bad}", c -> c.createVolume(efsVolume("pvc-e10")
            .putAllParameters(withParameter(ok, "subPathPattern", "${.PVC.bad}")).build()),
            Status.Code.INVALID_ARGUMENT),
        new Hostile("ControllerPublishVolume (not offered)", c -> c.controllerPublishVolume(
            ControllerPublishVolumeRequest.newBuilder().setVolumeId("fs-0123abcd").setNodeId("x")
                .setVolumeCapability(MOUNT).build()), Status.Code.UNIMPLEMENTED));
  }

  @ParameterizedTest(name = "EFS {0}")
  @MethodSource("efsRequests")
  void efsAnswersHostileRequestsWithTheSpecsCode(Hostile hostile) {
    answered(efs, hostile);
  }

  /** CreateVolume "*" and "?" (EC2 filter wildcards) -> a volume of their own, never another name's volume. */
  @Test
  void wildcardNamesNeverFindAnotherNamesVolume() {
    CreateVolumeRequest target = createVolume("pvc-wildcard-target").setCapacityRange(CapacityRange.newBuilder()
        .setRequiredBytes(GIB)).build();
    String existing = CsiAssert.ok(() -> ebs.controller().createVolume(target)).getVolume().getVolumeId();
    for (String name : List.of("*", "pvc-wildcard-*", "pvc-wildcard-targe?")) {
      String id = CsiAssert.ok(() -> ebs.controller().createVolume(target.toBuilder().setName(name).build()))
          .getVolume().getVolumeId();
      assertThat(id).as(name).isNotEqualTo(existing);
      assertThat(ControllerSupport.volumesNamed(FX, name)).containsExactly(id);
      assertThat(CsiAssert.ok(() -> ebs.controller().createVolume(target.toBuilder().setName(name).build()))
          .getVolume().getVolumeId()).as("a retry of " + name + " finds its own volume").isEqualTo(id);
    }
  }

  private static Map<String, String> withParameter(Map<String, String> base, String key, String value) {
    Map<String, String> out = new HashMap<>(base);
    out.put(key, value);
    return out;
  }

  private static void answered(DriverProcess driver, Hostile hostile) {
    Duration deadline = Duration.ofSeconds(30);
    Timed t = ControllerSupport.timed(driver, deadline, hostile.call());

    assertThat(t.status().getCode()).as(hostile.name() + ": " + t.status())
        .isNotIn(Status.Code.INTERNAL, Status.Code.UNKNOWN).isIn(hostile.expected());
    assertThat(t.took()).isLessThan(deadline);
  }
}
