package io.awscsi.core.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.BoolValue;
import com.google.protobuf.Int64Value;
import com.google.protobuf.Timestamp;
import csi.v1.CapacityRange;
import csi.v1.ControllerServiceCapability;
import csi.v1.CreateVolumeRequest;
import csi.v1.GetCapacityResponse;
import csi.v1.ListSnapshotsResponse;
import csi.v1.NodeGetInfoResponse;
import csi.v1.ProbeResponse;
import csi.v1.Snapshot;
import csi.v1.Topology;
import csi.v1.TopologyRequirement;
import csi.v1.VolumeCapability;
import csi.v1.VolumeContentSource;
import org.junit.jupiter.api.Test;

class CsiJsonTest {

  private final CsiJsonParser parser = new CsiJsonParser();

  private static CreateVolumeRequest fullCreate() {
    return CreateVolumeRequest.newBuilder()
        .setName("pvc-1 \"quoted\" \\ tab\t")
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(5L << 40).setLimitBytes(Long.MAX_VALUE))
        .addVolumeCapabilities(VolumeCapability.newBuilder()
            .setMount(VolumeCapability.MountVolume.newBuilder().setFsType("xfs").addMountFlags("noatime")
                .addMountFlags("nodiscard"))
            .setAccessMode(VolumeCapability.AccessMode.newBuilder()
                .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_MULTI_WRITER)))
        .addVolumeCapabilities(VolumeCapability.newBuilder()
            .setBlock(VolumeCapability.BlockVolume.getDefaultInstance()))
        .putParameters("type", "gp3")
        .putParameters("iops", "4000")
        .putMutableParams("throughput", "250")
        .putSecrets("password", "hunter2")
        .setVolumeContentSource(VolumeContentSource.newBuilder().setSnapshot(
            VolumeContentSource.SnapshotSource.newBuilder().setSnapshotId("snap-1")))
        .setAccessibilityRequirements(TopologyRequirement.newBuilder()
            .addRequisite(Topology.newBuilder().putSegments("topology.ebs.csi.aws.com/zone", "us-east-1a"))
            .addPreferred(Topology.newBuilder().putSegments("topology.kubernetes.io/zone", "us-east-1b")))
        .build();
  }

  @Test
  void aMessageWithEveryKindOfFieldSurvivesPrintAndParse() {
    CreateVolumeRequest request = fullCreate();

    String json = CsiJsonPrinter.pretty().print(request);

    assertThat(json).contains("\"name\": \"pvc-1 \\\"quoted\\\" \\\\ tab\\t\"", "\"requiredBytes\": \"5497558138880\"",
        "\"mode\": \"SINGLE_NODE_MULTI_WRITER\"", "\"mutableParameters\": {", "\"block\": {}",
        "\"topology.ebs.csi.aws.com/zone\": \"us-east-1a\"", "\"password\": \"hunter2\"");
    assertThat(parser.parse(json, CreateVolumeRequest.getDefaultInstance())).isEqualTo(request);
  }

  @Test
  void wrappersAndTimestampsUseTheirJsonForms() {
    ProbeResponse ready = ProbeResponse.newBuilder().setReady(BoolValue.of(true)).build();
    ProbeResponse notReady = ProbeResponse.newBuilder().setReady(BoolValue.of(false)).build();
    GetCapacityResponse capacity = GetCapacityResponse.newBuilder().setAvailableCapacity(1L << 40)
        .setMaximumVolumeSize(Int64Value.of(64L << 40)).build();
    ListSnapshotsResponse snapshots = ListSnapshotsResponse.newBuilder().addEntries(ListSnapshotsResponse.Entry
        .newBuilder().setSnapshot(Snapshot.newBuilder().setSnapshotId("snap-1").setReadyToUse(true)
            .setCreationTime(Timestamp.newBuilder().setSeconds(1_767_225_600L).setNanos(5_000_000))))
        .setNextToken("2").build();

    assertThat(CsiJsonPrinter.pretty().print(ready)).isEqualTo("{\n  \"ready\": true\n}");
    assertThat(CsiJsonPrinter.pretty().print(notReady)).isEqualTo("{\n  \"ready\": false\n}");
    assertThat(CsiJsonPrinter.pretty().print(ProbeResponse.getDefaultInstance())).isEqualTo("{}");
    assertThat(CsiJsonPrinter.pretty().print(capacity)).contains("\"maximumVolumeSize\": \"70368744177664\"");
    assertThat(CsiJsonPrinter.pretty().print(snapshots)).contains("\"creationTime\": \"2026-01-01T00:00:00.005Z\"");
    for (var message : new com.google.protobuf.MessageLite[] {ready, notReady, capacity, snapshots}) {
      assertThat(parser.parse(CsiJsonPrinter.pretty().print(message), message)).isEqualTo(message);
    }
  }

  @Test
  void parsesWhatPeopleTypeProtoNamesNumbersAsStringsAndEnumNumbers() {
    CreateVolumeRequest parsed = parser.parse("""
        {"name": "v", "capacity_range": {"required_bytes": "1073741824"},
         "volumeCapabilities": [{"mount": {"fsType": "ext4"}, "accessMode": {"mode": 1}}],
         "mutable_params": {"iops": "3000"}, "parameters": null}""", CreateVolumeRequest.getDefaultInstance());

    assertThat(parsed.getCapacityRange().getRequiredBytes()).isEqualTo(1L << 30);
    assertThat(parsed.getVolumeCapabilities(0).getAccessMode().getMode())
        .isEqualTo(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER);
    assertThat(parsed.getMutableParamsMap()).containsEntry("iops", "3000");
    assertThat(parser.parse("", CreateVolumeRequest.getDefaultInstance()))
        .isEqualTo(CreateVolumeRequest.getDefaultInstance());
  }

  @Test
  void jsonThatDoesNotFitNamesThePathAndWhatWasExpected() {
    CreateVolumeRequest proto = CreateVolumeRequest.getDefaultInstance();

    assertThatThrownBy(() -> parser.parse("{\"nmae\": \"x\"}", proto))
        .isInstanceOf(CsiJsonParser.JsonMismatchException.class).hasMessageContaining("has no field \"nmae\"");
    assertThatThrownBy(() -> parser.parse("{\"capacityRange\": {\"requiredBytes\": \"ten\"}}", proto))
        .hasMessageContaining("$.capacityRange.requiredBytes: expected an integer");
    assertThatThrownBy(() -> parser.parse("{\"volumeCapabilities\": [{\"accessMode\": {\"mode\": \"RW\"}}]}", proto))
        .hasMessageContaining("$.volumeCapabilities[0].accessMode.mode: expected one of [UNKNOWN, SINGLE_NODE_WRITER");
    assertThatThrownBy(() -> parser.parse("{\"volumeCapabilities\": {}}", proto))
        .hasMessageContaining("expected an array");
    assertThatThrownBy(() -> parser.parse("{\"name\": 5}", proto)).hasMessageContaining("$.name: expected a string");
    assertThatThrownBy(() -> parser.parse("{\"name\": ", proto)).hasMessageStartingWith("not JSON");
  }

  @Test
  void theSingleLinePrinterHidesWhatTheRedactionNamesAndNothingElse() {
    String line = CsiJsonPrinter.singleLine((field, key) -> CsiSchema.isSecret(field) || "iops".equals(key))
        .print(fullCreate());

    assertThat(line).doesNotContain("\n", "hunter2", "\"4000\"")
        .contains("\"password\": \"" + CsiJsonPrinter.MASK + "\"", "\"iops\": \"" + CsiJsonPrinter.MASK + "\"",
            "\"type\": \"gp3\"", "\"throughput\": \"250\"", "{\"name\": ");
  }

  @Test
  void unknownEnumNumbersAndInt32sStayReadable() {
    ControllerServiceCapability future = ControllerServiceCapability.newBuilder().setRpc(
        ControllerServiceCapability.RPC.newBuilder().setTypeValue(999)).build();
    NodeGetInfoResponse info = NodeGetInfoResponse.newBuilder().setNodeId("i-1").setMaxVolumesPerNode(25)
        .setAccessibleTopology(Topology.newBuilder().putSegments("topology.ebs.csi.aws.com/zone", "us-east-1a"))
        .build();

    assertThat(CsiJsonPrinter.pretty().print(future)).contains("\"type\": 999");
    assertThat(CsiJsonPrinter.pretty().print(info)).contains("\"maxVolumesPerNode\": \"25\"", "\"nodeId\": \"i-1\"");
    assertThat(parser.parse(CsiJsonPrinter.pretty().print(future), future)).isEqualTo(future);
  }
}
