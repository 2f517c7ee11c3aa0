package io.awscsi.e2e.adversarial;

import static io.awscsi.e2e.adversarial.ControllerSupport.GIB;
import static io.awscsi.e2e.adversarial.ControllerSupport.createVolume;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CapacityRange;
import csi.v1.CreateVolumeRequest;
import csi.v1.ValidateVolumeCapabilitiesRequest;
import csi.v1.VolumeCapability.AccessMode.Mode;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 12 item 12a over the EBS controller socket: a file system the node would refuse to stage (ntfs, ext2, vfat,
 * ...) is refused at CreateVolume, before EC2 makes a volume. Item 12c against the distribution's launcher:
 * {@code --help} lists exactly the flags each command accepts ({@code local --work-dir}, never {@code --socket-dir}).
 */
@Tag("integration")
class EbsControllerCreateRefusalsTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  private static DriverProcess ebs;

  @BeforeAll
  static void start() {
    ebs = FX.start(Driver.EBS, DriverFixture.Mode.CONTROLLER);
  }

  static List<String> unsupportedFileSystems() {
    return List.of("ntfs", "ext2", "vfat", "btrfs", "zfs", "xfs;rm -rf /", "efs", "nfs4");
  }

  /** CreateVolume with mount.fs_type X -> INVALID_ARGUMENT naming volume_capabilities[0]; no EC2 CreateVolume. */
  @ParameterizedTest(name = "fs_type {0}")
  @MethodSource("unsupportedFileSystems")
  void anUnsupportedFileSystemIsRefusedAtCreate(String fsType) {
    long creates = FX.aws().stats().calls("ec2", "CreateVolume");
    String name = "pvc-fs-" + Math.abs(fsType.hashCode());

    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "volume_capabilities[0]", () -> ebs.controller().createVolume(
        CreateVolumeRequest.newBuilder().setName(name).addVolumeCapabilities(CsiRequests.mount(fsType,
            Mode.SINGLE_NODE_WRITER)).setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB)).build()));
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "csi.storage.k8s.io/fstype", () -> ebs.controller()
        .createVolume(createVolume(name).putParameters("csi.storage.k8s.io/fstype", fsType).build()));

    assertThat(FX.aws().stats().calls("ec2", "CreateVolume")).isEqualTo(creates);
    assertThat(ControllerSupport.volumesNamed(FX, name)).isEmpty();
  }

  /** The supported ones, in any case and with no type (the default ext4) -> OK; block -> OK; ntfs is unconfirmed. */
  @Test
  void supportedFileSystemsAreCreatedAndValidateSaysWhichAreNot() {
    String id = null;
    for (String fsType : List.of("ext3", "EXT4", "xfs", "")) {
      id = CsiAssert.ok(() -> ebs.controller().createVolume(CreateVolumeRequest.newBuilder()
          .setName("pvc-fs-ok-" + fsType).addVolumeCapabilities(CsiRequests.mount(fsType, Mode.SINGLE_NODE_WRITER))
          .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB)).build())).getVolume().getVolumeId();
    }
    CsiAssert.ok(() -> ebs.controller().createVolume(CreateVolumeRequest.newBuilder().setName("pvc-fs-block")
        .addVolumeCapabilities(CsiRequests.block(Mode.SINGLE_NODE_WRITER))
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB)).build()));
    String volume = id;

    var answer = CsiAssert.ok(() -> ebs.controller().validateVolumeCapabilities(ValidateVolumeCapabilitiesRequest
        .newBuilder().setVolumeId(volume).addVolumeCapabilities(CsiRequests.mount("ntfs", Mode.SINGLE_NODE_WRITER))
        .build()));
    assertThat(answer.hasConfirmed()).isFalse();
    assertThat(answer.getMessage()).contains("ntfs");
  }

  /** aws-csi-driver --help and local --help: --work-dir listed and accepted, --socket-dir neither. */
  @Test
  void helpListsExactlyTheFlagsTheCommandsAccept() {
    DriverFixture.Run help = FX.run(Duration.ofSeconds(60), "--help");
    DriverFixture.Run localHelp = FX.run(Duration.ofSeconds(60), "local", "--help");
    DriverFixture.Run socketDir = FX.run(Duration.ofSeconds(60), "local", "--socket-dir", "/tmp/x", "--exit");

    assertThat(help.exitCode()).isZero();
    assertThat(help.output()).contains("--work-dir DIR", "--http-endpoint", "/readyz").doesNotContain("socket-dir");
    assertThat(localHelp.exitCode()).isZero();
    assertThat(localHelp.output()).contains("--work-dir DIR", "--no-lifecycle", "--profile");
    assertThat(socketDir.exitCode()).as(socketDir.output()).isEqualTo(2);
    assertThat(socketDir.output()).contains("unknown flag --socket-dir");
  }
}
