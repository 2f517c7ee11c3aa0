package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.VolumeCapability;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class VolumeParametersTest {

  private static final List<VolumeCapability> MOUNT = List.of(VolumeCapability.mount(AccessMode.SINGLE_NODE_WRITER,
      ""));
  private static final List<VolumeCapability> XFS = List.of(VolumeCapability.mount(AccessMode.SINGLE_NODE_WRITER,
      "xfs"));
  private static final List<VolumeCapability> BLOCK = List.of(VolumeCapability.block(AccessMode.SINGLE_NODE_WRITER));

  @Test
  void defaultsAreGp3WithEc2DefaultsAndNoContext() {
    VolumeParameters p = VolumeParameters.parse(Map.of(), Map.of(), MOUNT);
    assertThat(p.type()).isEqualTo(VolumeType.GP3);
    assertThat(p.iopsFor(100)).isZero();
    assertThat(p.throughput()).isZero();
    assertThat(p.encrypted()).isFalse();
    assertThat(p.volumeContext()).isEmpty();
  }

  @Test
  void keysMatchCaseInsensitively() {
    VolumeParameters p = VolumeParameters.parse(Map.of("TYPE", "io2", "IOPS", "5000", "Encrypted", "true",
        "KmsKeyId", "arn:aws:kms:us-east-1:1:key/k"), Map.of(), MOUNT);
    assertThat(p.type()).isEqualTo(VolumeType.IO2);
    assertThat(p.iopsFor(100)).isEqualTo(5000);
    assertThat(p.encrypted()).isTrue();
    assertThat(p.kmsKeyId()).isEqualTo("arn:aws:kms:us-east-1:1:key/k");
  }

  @Test
  void kmsKeyForcesEncryption() {
    assertThat(VolumeParameters.parse(Map.of("kmsKeyId", "k"), Map.of(), MOUNT).encrypted()).isTrue();
  }

  @Test
  void mutableParametersWinOverTheStorageClass() {
    VolumeParameters p = VolumeParameters.parse(Map.of("type", "gp3", "iops", "3000"),
        Map.of("iops", "4000", "throughput", "250"), MOUNT);
    assertThat(p.iopsFor(100)).isEqualTo(4000);
    assertThat(p.throughput()).isEqualTo(250);
  }

  @Test
  void mkfsOptionsAndFsTypeTravelInTheVolumeContextWithUpstreamKeys() {
    VolumeParameters p = VolumeParameters.parse(Map.of("csi.storage.k8s.io/fstype", "ext4", "blockSize", "4096",
        "inodeSize", "512", "bytesPerInode", "8192", "numberOfInodes", "1000", "ext4BigAlloc", "true",
        "ext4ClusterSize", "65536"), Map.of(), MOUNT);
    assertThat(p.volumeContext()).containsExactlyInAnyOrderEntriesOf(Map.of("csi.storage.k8s.io/fstype", "ext4",
        "blocksize", "4096", "inodesize", "512", "bytesperinode", "8192", "numberofinodes", "1000",
        "ext4bigalloc", "true", "ext4clustersize", "65536"));
  }

  @Test
  void iopsPerGbIsCappedAndRaisedOnlyWhenAllowed() {
    VolumeParameters ratio = VolumeParameters.parse(Map.of("type", "io1", "iopsPerGB", "100"), Map.of(), MOUNT);
    assertThat(ratio.iopsFor(10)).isEqualTo(500);
    assertThat(ratio.iopsFor(2000)).isEqualTo(64_000);
    assertThat(ratio.driverTags()).containsEntry("ebs.csi.aws.com/IOPSPerGb", "100");
    VolumeParameters low = VolumeParameters.parse(Map.of("type", "gp3", "iopsPerGB", "10"), Map.of(), MOUNT);
    assertThatThrownBy(() -> low.iopsFor(10)).isInstanceOf(DriverException.class)
        .hasMessageContaining("allowAutoIOPSPerGBIncrease");
    VolumeParameters raised = VolumeParameters.parse(Map.of("type", "gp3", "iopsPerGB", "10",
        "allowAutoIOPSPerGBIncrease", "true"), Map.of(), MOUNT);
    assertThat(raised.iopsFor(10)).isEqualTo(3000);
  }

  @Test
  void tagSpecificationsAndCreatedForMetadataAreKept() {
    VolumeParameters p = VolumeParameters.parse(Map.of("tagSpecification_1", "team={{ .PVCNamespace }}",
        "csi.storage.k8s.io/pvc/name", "data", "csi.storage.k8s.io/pvc/namespace", "shop",
        "csi.storage.k8s.io/pv/name", "pvc-1"), Map.of(), MOUNT);
    assertThat(p.tagSpecifications()).containsEntry("tagSpecification_1", "team={{ .PVCNamespace }}");
    assertThat(p.templateFields()).containsEntry("PVCName", "data").containsEntry("PVCNamespace", "shop")
        .containsEntry("PVName", "pvc-1");
    assertThat(p.createdForTags()).containsEntry("kubernetes.io/created-for/pvc/namespace", "shop");
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of("unknown key", Map.of("speed", "fast"), MOUNT, "speed"),
        Arguments.of("unknown type", Map.of("type", "gp4"), MOUNT, "type"),
        Arguments.of("iops not a number", Map.of("iops", "many"), MOUNT, "iops"),
        Arguments.of("iops with a space", Map.of("iops", " 5"), MOUNT, "iops"),
        Arguments.of("iops with iopsPerGB", Map.of("iops", "3000", "iopsPerGB", "10"), MOUNT, "iopsPerGB"),
        Arguments.of("tag prefix in another case", Map.of("TagSpecification_1", "a=b"), MOUNT, "TagSpecification_1"),
        Arguments.of("type in upper case", Map.of("type", "GP3"), MOUNT, "type"),
        Arguments.of("throughput on gp2", Map.of("type", "gp2", "throughput", "200"), MOUNT, "throughput"),
        Arguments.of("throughput too high", Map.of("throughput", "5000"), MOUNT, "throughput"),
        Arguments.of("unknown fstype", Map.of("csi.storage.k8s.io/fstype", "zfs"), MOUNT,
            "csi.storage.k8s.io/fstype"),
        Arguments.of("mkfs option on block", Map.of("blockSize", "4096"), BLOCK, "blocksize"),
        Arguments.of("bytesPerInode on xfs", Map.of("bytesPerInode", "4096"), XFS, "bytesperinode"),
        Arguments.of("bigalloc on xfs class", Map.of("ext4BigAlloc", "true", "csi.storage.k8s.io/fstype", "xfs"),
            MOUNT, "ext4bigalloc"),
        Arguments.of("initialization rate out of range", Map.of("volumeInitializationRate", "50"), MOUNT,
            "volumeInitializationRate"),
        Arguments.of("bad mutable key", Map.of(), MOUNT, "size"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void invalidParametersAreInvalidArgumentNamingTheKey(String name, Map<String, String> parameters,
      List<VolumeCapability> capabilities, String field) {
    Map<String, String> mutable = field.equals("size") ? Map.of("size", "10") : Map.of();
    assertThatThrownBy(() -> VolumeParameters.parse(parameters, mutable, capabilities))
        .isInstanceOfSatisfying(DriverException.class, e -> {
          assertThat(e.error()).isInstanceOf(DriverError.InvalidArgument.class);
          assertThat(((DriverError.InvalidArgument) e.error()).field()).isEqualTo(field);
        });
  }

  @Test
  void explicitIopsAreCheckedAgainstTheTypeAndCappedBySize() {
    VolumeParameters p = VolumeParameters.parse(Map.of("type", "io1", "iops", "5000"), Map.of(), MOUNT);
    assertThat(p.iopsFor(100)).isEqualTo(5000);
    assertThat(p.iopsFor(10)).isEqualTo(500);
    VolumeParameters gp3 = VolumeParameters.parse(Map.of("type", "gp3", "iops", "3014"), Map.of(), MOUNT);
    assertThat(gp3.iopsFor(1)).isEqualTo(3000);
    assertThat(gp3.iopsFor(10)).isEqualTo(3014);
    VolumeParameters gp2 = VolumeParameters.parse(Map.of("type", "gp2", "iops", "5000"), Map.of(), MOUNT);
    assertThatThrownBy(() -> gp2.iopsFor(100)).hasMessageContaining("takes no provisioned IOPS");
    VolumeParameters low = VolumeParameters.parse(Map.of("type", "io2", "iops", "50"), Map.of(), MOUNT);
    assertThatThrownBy(() -> low.iopsFor(100)).hasMessageContaining("100 to 256000");
  }
}
