package io.awscsi.efs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.LinuxMounter;
import io.awscsi.core.host.ProcessCommandRunner;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.provider.NodePublishRequest;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeProvisioner;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.efs.cloud.EfsCloudFactory;
import io.awscsi.emulation.efs.LocalDirectoryMountBackend;
import io.awscsi.efs.node.EfsNodeOptions;
import io.awscsi.efs.node.EfsNodeProvider;
import io.awscsi.efs.testing.MotoEfs;
import io.awscsi.efs.volume.VolumeHandle;
import io.awscsi.realism.RealismProfile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * Directory work of the controller through the local stand-in, for real: efs-dir volumes, and the root directories of
 * access points with --delete-access-point-root-dir, including each refused deletion end to end.
 */
@Tag("integration")
class VolumeDirectoryIntegrationTest {

  private static MotoEfs aws;

  @TempDir Path dir;
  private Path localRoot;
  private Path workDir;
  private LinuxMounter mounter;
  private EfsCloudFactory clouds;
  private String fs;
  private final List<Path> targets = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

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
  void tearDown() throws Exception {
    for (Path target : targets) {
      mounter.unmount(target);
    }
    for (AutoCloseable c : closeables) {
      c.close();
    }
    assertThat(mounter.mounts().stream().filter(m -> m.mountPoint().startsWith(dir))).isEmpty();
  }

  private VolumeProvisioner controller(boolean deleteRootDir) {
    EfsControllerProvider controller = EfsControllerProvider.create(new EfsControllerOptions(Map.of(), deleteRootDir,
        workDir, ""), clouds, mounter, LocalDirectoryMountBackend.factory(localRoot));
    return controller.provisioner();
  }

  private EfsNodeProvider node() {
    EfsNodeProvider node = EfsNodeProvider.create(new EfsNodeOptions(false, Duration.ofMinutes(1), 5, false,
        Duration.ofSeconds(5), 0), new NodeInfo("i-0123", 0, Map.of()),
        mounter, ProcessCommandRunner.create(), new LocalDirectoryMountBackend(localRoot, mounter,
            clouds.defaultCloud()::describeAccessPoint));
    closeables.add(node);
    return node;
  }

  private Map<String, String> parameters(String mode, String... extra) {
    Map<String, String> p = new HashMap<>(Map.of("provisioningMode", mode, "fileSystemId", fs,
        "directoryPerms", "750", "basePath", "/base"));
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

  /** Publishes on two targets, writes through one and reads through the other, then unpublishes both. */
  private void useOnTwoTargets(String volumeId, String content) throws IOException {
    EfsNodeProvider node = node();
    Path a = dir.resolve("pods/a/mount");
    Path b = dir.resolve("pods/b/mount");
    targets.addAll(List.of(a, b));
    for (Path t : List.of(a, b)) {
      node.publisher().publish(new NodePublishRequest(volumeId, Map.of(), null, t,
          VolumeCapability.mount(AccessMode.MULTI_NODE_MULTI_WRITER, ""), false, Map.of(), Map.of()));
    }
    Files.writeString(a.resolve("data.txt"), content);
    assertThat(b.resolve("data.txt")).hasContent(content);
    node.publisher().unpublish(volumeId, a);
    node.publisher().unpublish(volumeId, b);
  }

  @Test
  void efsDirCreatesOneDirectoryPerVolumeWithItsOwnerAndMode() throws IOException {
    Volume volume = controller(false).createVolume(request("pvc-1", parameters("efs-dir", "uid", "1234",
        "gid", "5678")));

    assertThat(volume.volumeId()).isEqualTo("efs:" + fs + ":/base/pvc-1");
    Path directory = local("/base/pvc-1");
    assertThat(directory).isDirectory();
    assertThat(Files.getAttribute(directory, "unix:uid")).isEqualTo(1234);
    assertThat(Files.getAttribute(directory, "unix:gid")).isEqualTo(5678);
    assertThat(Integer.toOctalString((Integer) Files.getAttribute(directory, "unix:mode") & 07777)).isEqualTo("750");
    assertThat(local("/" + DirectoryLedger.DIRECTORY + "/" + DirectoryLedger.fileName(volume.volumeId())))
        .isRegularFile();
    assertThat(workDir.resolve(fs)).doesNotExist();
    useOnTwoTargets(volume.volumeId(), "efs-dir data");
  }

  @Test
  void efsDirIsIdempotentAndRefusesADirectoryItDidNotMake() throws IOException {
    VolumeProvisioner controller = controller(false);
    String first = controller.createVolume(request("pvc-1", parameters("efs-dir"))).volumeId();

    assertThat(controller.createVolume(request("pvc-1", parameters("efs-dir"))).volumeId()).isEqualTo(first);

    Files.createDirectories(local("/base/pvc-2"));
    assertThatThrownBy(() -> controller.createVolume(request("pvc-2", parameters("efs-dir"))))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.AlreadyExists.class))
        .hasMessageContaining("was not created by this driver");
  }

  @Test
  void efsDirKeepsDataUnlessTheFlagIsSet() throws IOException {
    String kept = controller(false).createVolume(request("pvc-1", parameters("efs-dir"))).volumeId();
    Files.writeString(local("/base/pvc-1/file"), "data");
    controller(false).deleteVolume(kept, Map.of());
    assertThat(local("/base/pvc-1/file")).exists();

    String removed = controller(true).createVolume(request("pvc-2", parameters("efs-dir"))).volumeId();
    Files.writeString(local("/base/pvc-2/file"), "data");
    controller(true).deleteVolume(removed, Map.of());
    controller(true).deleteVolume(removed, Map.of());

    assertThat(local("/base/pvc-2")).doesNotExist();
    assertThat(local("/base")).isDirectory();
    assertThat(local("/" + DirectoryLedger.DIRECTORY + "/" + DirectoryLedger.fileName(removed))).doesNotExist();
  }

  @Test
  void efsDirKeepsADirectoryWithoutARecordEvenWithTheFlag() throws IOException {
    Files.createDirectories(local("/manual"));
    Files.writeString(local("/manual/file"), "static data");

    controller(true).deleteVolume("efs:" + fs + ":/manual", Map.of());
    controller(true).deleteVolume("efs:" + fs, Map.of());

    assertThat(local("/manual/file")).hasContent("static data");
  }

  @Test
  void theFlagRemovesTheRootDirectoryOfADriverMadeAccessPoint() throws IOException {
    VolumeProvisioner controller = controller(true);
    Volume volume = controller.createVolume(request("pvc-1", parameters("efs-ap")));
    useOnTwoTargets(volume.volumeId(), "ap data");
    assertThat(local("/base/pvc-1/data.txt")).exists();

    controller.deleteVolume(volume.volumeId(), Map.of());

    assertThat(local("/base/pvc-1")).doesNotExist();
    assertThat(local("/base")).isDirectory();
    assertThat(clouds.defaultCloud().describeAccessPoint(VolumeHandle.parse(volume.volumeId()).accessPointId()))
        .isEmpty();
  }

  @Test
  void withoutTheFlagAnAccessPointsDataIsKept() throws IOException {
    Volume volume = controller(false).createVolume(request("pvc-1", parameters("efs-ap")));
    useOnTwoTargets(volume.volumeId(), "ap data");

    controller(false).deleteVolume(volume.volumeId(), Map.of());

    assertThat(local("/base/pvc-1/data.txt")).exists();
  }

  @Test
  void anAccessPointMadeByHandAtTheRootKeepsTheWholeFileSystem() throws IOException {
    String apId = aws.efs().createAccessPoint(r -> r.fileSystemId(fs).clientToken("by-hand")
        .rootDirectory(d -> d.path("/"))).accessPointId();
    Files.createDirectories(local("/other-team"));
    Files.writeString(local("/other-team/precious"), "keep");

    controller(true).deleteVolume("efs:" + fs + "::" + apId, Map.of());

    assertThat(local("/other-team/precious")).hasContent("keep");
    assertThat(clouds.defaultCloud().describeAccessPoint(apId)).isEmpty();
  }

  @Test
  void anAccessPointWithoutOwnershipTagsKeepsItsDirectory() throws IOException {
    Volume volume = controller(true).createVolume(request("pvc-1", parameters("efs-ap", "enableTagging", "false")));
    useOnTwoTargets(volume.volumeId(), "untagged");

    controller(true).deleteVolume(volume.volumeId(), Map.of());

    assertThat(local("/base/pvc-1/data.txt")).exists();
  }

  @Test
  void aDirectorySharedWithAnotherAccessPointIsKept() throws IOException {
    Volume volume = controller(true).createVolume(request("pvc-1", parameters("efs-ap")));
    useOnTwoTargets(volume.volumeId(), "shared");
    aws.efs().createAccessPoint(r -> r.fileSystemId(fs).clientToken("static-view")
        .rootDirectory(d -> d.path("/base/pvc-1")));

    controller(true).deleteVolume(volume.volumeId(), Map.of());

    assertThat(local("/base/pvc-1/data.txt")).exists();
  }

  @Test
  void aRootDirectoryReplacedByALinkIsNotFollowed() throws IOException {
    Volume volume = controller(true).createVolume(request("pvc-1", parameters("efs-ap")));
    useOnTwoTargets(volume.volumeId(), "data");
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.writeString(outside.resolve("precious"), "keep");
    Path root = local("/base/pvc-1");
    Files.walk(root).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    Files.createSymbolicLink(root, outside);

    assertThatThrownBy(() -> controller(true).deleteVolume(volume.volumeId(), Map.of()))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.FailedPrecondition.class))
        .hasMessageContaining("/base/pvc-1 is a symbolic link");
    assertThat(outside.resolve("precious")).hasContent("keep");
    assertThat(clouds.defaultCloud().describeAccessPoint(VolumeHandle.parse(volume.volumeId()).accessPointId()))
        .isPresent();
  }

  @Test
  void anAccessPointOfAnotherFileSystemIsRefused() {
    Volume volume = controller(true).createVolume(request("pvc-1", parameters("efs-ap")));
    String other = aws.createFileSystem();
    String mismatched = "efs:" + other + "::" + VolumeHandle.parse(volume.volumeId()).accessPointId();

    assertThatThrownBy(() -> controller(true).deleteVolume(mismatched, Map.of()))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.FailedPrecondition.class))
        .hasMessageContaining(other);
    assertThat(clouds.defaultCloud().describeAccessPoint(VolumeHandle.parse(volume.volumeId()).accessPointId()))
        .isPresent();
  }
}
