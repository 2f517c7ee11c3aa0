package io.awscsi.efs.controller;

import io.awscsi.emulation.efs.LocalDirectoryMountBackend;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.LinuxMounter;
import io.awscsi.core.host.ProcessCommandRunner;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeProvisioner;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.efs.cloud.EfsCloudFactory;
import io.awscsi.efs.testing.MotoEfs;
import io.awscsi.efs.volume.VolumeHandle;
import io.awscsi.realism.RealismProfile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24 items 2 and 3 through the local stand-in: no volume's directory or access-point root lies inside
 * another's, the driver's ledger is never a volume, and volumes nested by older versions keep each other's data on
 * deletion.
 */
@Tag("integration")
class ConfinedDirectoriesIntegrationTest {

  private static MotoEfs aws;

  @TempDir Path dir;
  private Path localRoot;
  private Path workDir;
  private LinuxMounter mounter;
  private EfsCloudFactory clouds;
  private String fs;

  @BeforeAll
  static void startAws() {
    aws = MotoEfs.start(RealismProfile.instant());
  }

  @AfterAll
  static void stopAws() {
    aws.close();
  }

  @BeforeEach
  void setUp() throws IOException {
    aws.reset();
    dir = dir.toRealPath();
    localRoot = dir.resolve("efs-local");
    workDir = dir.resolve("controller-mounts");
    mounter = LinuxMounter.create(ProcessCommandRunner.create());
    clouds = aws.clouds(new MetricsRegistry());
    fs = aws.createFileSystem();
  }

  @AfterEach
  void noMountLeft() throws IOException {
    assertThat(mounter.mounts().stream().filter(m -> m.mountPoint().startsWith(dir))).isEmpty();
  }

  private VolumeProvisioner controller() {
    EfsControllerProvider controller = EfsControllerProvider.create(new EfsControllerOptions(Map.of(), true,
        workDir, ""), clouds, mounter, LocalDirectoryMountBackend.factory(localRoot));
    return controller.provisioner();
  }

  private Map<String, String> parameters(String mode, String basePath, String... extra) {
    Map<String, String> p = new HashMap<>(Map.of("provisioningMode", mode, "fileSystemId", fs,
        "directoryPerms", "750", "basePath", basePath));
    for (int i = 0; i < extra.length; i += 2) {
      p.put(extra[i], extra[i + 1]);
    }
    return p;
  }

  private static VolumeRequest request(String name, Map<String, String> parameters) {
    return new VolumeRequest(name, CapacityRange.UNSPECIFIED,
        List.of(VolumeCapability.mount(AccessMode.MULTI_NODE_MULTI_WRITER, "")), parameters, Map.of(), Map.of(),
        new VolumeSource.Empty(), TopologyRequirement.NONE);
  }

  private Path local(String path) {
    return localRoot.resolve(fs + path);
  }

  private static void refused(Class<? extends DriverError> code, String message, Runnable call) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(DriverException.class,
        e -> assertThat(e.error()).isInstanceOf(code)).hasMessageContaining(message);
  }

  /** Records a volume the way an older version did, for a name it no longer accepts. */
  private String legacyDirectoryVolume(String basePath, String directory) throws IOException {
    String volumeId = VolumeHandle.ofDirectory(fs, directory).volumeId();
    Files.createDirectories(local(directory));
    DirectoryLedger.record(local("/"), new DirectoryLedger.Entry(volumeId, basePath, directory, -1));
    return volumeId;
  }

  @Test
  void aNameWithASlashIsRefusedInBothModesAndMakesNothing() throws IOException {
    VolumeProvisioner controller = controller();
    controller.createVolume(request("outer", parameters("efs-dir", "/base")));

    refused(DriverError.InvalidArgument.class, "contains \"/\"",
        () -> controller.createVolume(request("outer/inner", parameters("efs-dir", "/base"))));
    refused(DriverError.InvalidArgument.class, "contains \"/\"",
        () -> controller.createVolume(request("apouter/apinner", parameters("efs-ap", "/base"))));

    try (var inside = Files.list(local("/base/outer"))) {
      assertThat(inside).isEmpty();
    }
    assertThat(clouds.defaultCloud().listAccessPoints(fs)).isEmpty();
  }

  @Test
  void theLedgerIsNeverAVolume() throws IOException {
    VolumeProvisioner controller = controller();
    String volume = controller.createVolume(request("pvc-1", parameters("efs-dir", "/"))).volumeId();
    Path ledger = local("/" + DirectoryLedger.DIRECTORY);
    Object mode = Files.getAttribute(ledger, "unix:mode");

    refused(DriverError.InvalidArgument.class, "reserved", () -> controller.createVolume(
        request(DirectoryLedger.DIRECTORY, parameters("efs-dir", "/"))));
    refused(DriverError.InvalidArgument.class, "reserved", () -> controller.createVolume(
        request(DirectoryLedger.DIRECTORY, parameters("efs-ap", "/"))));
    refused(DriverError.InvalidArgument.class, "reserved", () -> controller.createVolume(
        request("pvc-2", parameters("efs-dir", "/" + DirectoryLedger.DIRECTORY))));

    assertThat(Files.getAttribute(ledger, "unix:mode")).isEqualTo(mode);
    // A handle naming the ledger (made by an older version, or forged) deletes nothing of it.
    String forged = legacyDirectoryVolume("/", "/" + DirectoryLedger.DIRECTORY);
    controller.deleteVolume(forged, Map.of());
    assertThat(ledger.resolve(DirectoryLedger.fileName(volume))).isRegularFile();
  }

  @Test
  void aLedgerHandedOutByAnOlderVersionIsTakenBack() throws IOException {
    VolumeProvisioner controller = controller();
    controller.createVolume(request("pvc-1", parameters("efs-dir", "/")));
    Path ledger = local("/" + DirectoryLedger.DIRECTORY);
    Object owner = Files.getAttribute(ledger, "unix:uid");
    // What the first efs-dir volume named like the ledger did to it.
    Files.setAttribute(ledger, "unix:uid", 1000);
    Files.setAttribute(ledger, "unix:gid", 1000);
    Files.setPosixFilePermissions(ledger, PosixFilePermissions.fromString("rwxrwxrwx"));

    controller.createVolume(request("pvc-2", parameters("efs-dir", "/")));

    assertThat(Files.getAttribute(ledger, "unix:uid")).isEqualTo(owner);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ledger))).isEqualTo("rwxr-xr-x");
  }

  @Test
  void aDirectoryInsideAnotherVolumesIsRefusedWhicheverComesFirst() {
    VolumeProvisioner controller = controller();
    controller.createVolume(request("team", parameters("efs-dir", "/base")));

    refused(DriverError.AlreadyExists.class, "would lie inside /base/team",
        () -> controller.createVolume(request("pvc-2", parameters("efs-dir", "/base/team"))));
    assertThat(local("/base/team/pvc-2")).doesNotExist();

    controller.createVolume(request("pvc-3", parameters("efs-dir", "/other/dept")));
    refused(DriverError.AlreadyExists.class, "was not created by this driver",
        () -> controller.createVolume(request("dept", parameters("efs-dir", "/other"))));
  }

  @Test
  void accessPointRootsNeverNestWithEachOtherOrWithDirectories() {
    VolumeProvisioner controller = controller();
    controller.createVolume(request("team", parameters("efs-ap", "/base")));

    refused(DriverError.AlreadyExists.class, "one inside the other",
        () -> controller.createVolume(request("pvc-2", parameters("efs-ap", "/base/team"))));
    refused(DriverError.AlreadyExists.class, "one inside the other",
        () -> controller.createVolume(request("base", parameters("efs-ap", "/"))));
    refused(DriverError.AlreadyExists.class, "one inside the other",
        () -> controller.createVolume(request("pvc-3", parameters("efs-dir", "/base/team"))));
    assertThat(clouds.defaultCloud().listAccessPoints(fs)).hasSize(1);
    assertThat(local("/base/team/pvc-3")).doesNotExist();
  }

  @Test
  void volumesNestedByAnOlderVersionKeepEachOthersData() throws IOException {
    VolumeProvisioner controller = controller();
    String outer = legacyDirectoryVolume("/base", "/base/outer");
    String inner = legacyDirectoryVolume("/base", "/base/outer/inner");
    Files.writeString(local("/base/outer/outer.txt"), "outer");
    Files.writeString(local("/base/outer/inner/inner.txt"), "inner");

    controller.deleteVolume(outer, Map.of());
    assertThat(local("/base/outer/inner/inner.txt")).hasContent("inner");

    controller.deleteVolume(inner, Map.of());
    assertThat(local("/base/outer/inner")).doesNotExist();
    controller.deleteVolume(outer, Map.of());
    assertThat(local("/base/outer")).doesNotExist();
    assertThat(local("/base")).isDirectory();
  }

  @Test
  void anAccessPointRootHoldingAnotherVolumesDirectoryIsKept() throws IOException {
    VolumeProvisioner controller = controller();
    String ap = controller.createVolume(request("shared", parameters("efs-ap", "/base"))).volumeId();
    legacyDirectoryVolume("/base/shared", "/base/shared/pvc-9");
    Files.writeString(local("/base/shared/pvc-9/data"), "kept");

    controller.deleteVolume(ap, Map.of());

    assertThat(local("/base/shared/pvc-9/data")).hasContent("kept");
    assertThat(clouds.defaultCloud().describeAccessPoint(VolumeHandle.parse(ap).accessPointId())).isEmpty();
  }
}
