package io.awscsi.efs.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.LinuxMounter;
import io.awscsi.core.host.MountState;
import io.awscsi.core.host.ProcessCommandRunner;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.provider.NodeProvider;
import io.awscsi.core.provider.NodePublishRequest;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeStats;
import io.awscsi.efs.cloud.AccessPoint;
import io.awscsi.efs.cloud.RootDirectory;
import io.awscsi.emulation.efs.LocalDirectoryMountBackend;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole publish/unpublish path for real, with the local stand-in: bind mounts of {@code <root>/<fs-id>/}. */
@Tag("integration")
class LocalEfsPublishIntegrationTest {

  private static final String FS = "fs-0123abcd";
  private static final String AP = "fsap-0123abcd";

  @TempDir Path dir;
  private Path localRoot;
  private LinuxMounter mounter;
  private final List<Path> targets = new ArrayList<>();
  private final List<EfsNodeProvider> providers = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    dir = dir.toRealPath();
    localRoot = dir.resolve("efs-local");
    mounter = LinuxMounter.create(ProcessCommandRunner.create());
  }

  @AfterEach
  void unmountEverything() {
    for (Path target : targets) {
      mounter.unmount(target);
    }
    providers.forEach(EfsNodeProvider::close);
  }

  private EfsNodeProvider node(boolean stats, boolean forceUnmount) {
    EfsNodeOptions options = new EfsNodeOptions(stats, Duration.ofMinutes(240), 5, forceUnmount,
        Duration.ofSeconds(5), 0);
    AccessPoint ap = new AccessPoint(AP, FS, "pvc-1", 1234, 5678, new RootDirectory("/dynamic/pvc-1", 1234, 5678,
        "0750"), Map.of(), "available");
    EfsNodeProvider node = EfsNodeProvider.create(options, new NodeInfo("i-0123", 0, Map.of()), mounter,
        ProcessCommandRunner.create(), new LocalDirectoryMountBackend(localRoot, mounter,
            id -> id.equals(AP) ? Optional.of(ap) : Optional.empty()));
    providers.add(node);
    return node;
  }

  private Path target(String pod) {
    Path target = dir.resolve("kubelet/pods/" + pod + "/volumes/kubernetes.io~csi/pv/mount");
    targets.add(target);
    return target;
  }

  private static NodePublishRequest publish(String volumeId, Path target, boolean readonly, AccessMode mode) {
    return new NodePublishRequest(volumeId, Map.of(), null, target, VolumeCapability.mount(mode, ""), readonly,
        Map.of(), Map.of());
  }

  @Test
  void twoTargetsSeeTheSameFilesAndUnpublishLeavesNothingMounted() throws IOException {
    NodeProvider node = node(false, false);
    Path a = target("pod-a");
    Path b = target("pod-b");
    String volume = "efs:" + FS + "::" + AP;

    node.publisher().publish(publish(volume, a, false, AccessMode.MULTI_NODE_MULTI_WRITER));
    node.publisher().publish(publish(volume, b, false, AccessMode.MULTI_NODE_MULTI_WRITER));
    Files.writeString(a.resolve("shared.txt"), "written through pod-a");

    assertThat(b.resolve("shared.txt")).hasContent("written through pod-a");
    Path apRoot = localRoot.resolve(FS + "/dynamic/pvc-1");
    assertThat(apRoot.resolve("shared.txt")).exists();
    assertThat(Files.getAttribute(apRoot, "unix:uid")).isEqualTo(1234);
    assertThat(Files.getAttribute(apRoot, "unix:gid")).isEqualTo(5678);
    assertThat(Integer.toOctalString((Integer) Files.getAttribute(apRoot, "unix:mode") & 07777)).isEqualTo("750");

    node.publisher().unpublish(volume, a);
    node.publisher().unpublish(volume, b);
    node.publisher().unpublish(volume, b);

    assertThat(mounter.inspect(a)).isInstanceOf(MountState.Absent.class);
    assertThat(mounter.inspect(b)).isInstanceOf(MountState.Absent.class);
    assertThat(apRoot.resolve("shared.txt")).hasContent("written through pod-a");
  }

  @Test
  void aRepeatedPublishMountsOnce() {
    NodeProvider node = node(false, false);
    Path a = target("pod-a");

    node.publisher().publish(publish("efs:" + FS, a, false, AccessMode.SINGLE_NODE_WRITER));
    node.publisher().publish(publish("efs:" + FS, a, false, AccessMode.SINGLE_NODE_WRITER));

    assertThat(mounter.mounts().stream().filter(m -> m.mountPoint().equals(a))).hasSize(1);
  }

  @Test
  void readOnlyPublishesCannotBeWritten() {
    NodeProvider node = node(false, false);
    Path ro = target("pod-ro");
    Path rox = target("pod-rox");

    node.publisher().publish(publish("efs:" + FS, ro, true, AccessMode.SINGLE_NODE_WRITER));
    node.publisher().publish(publish("efs:" + FS, rox, false, AccessMode.MULTI_NODE_READER_ONLY));

    for (Path target : List.of(ro, rox)) {
      assertThatThrownBy(() -> Files.writeString(target.resolve("x"), "no"))
          .isInstanceOf(FileSystemException.class).hasMessageContaining("Read-only file system");
    }
  }

  @Test
  void aSubpathMustExist() throws IOException {
    NodeProvider node = node(false, false);
    Path a = target("pod-a");

    assertThatThrownBy(() -> node.publisher().publish(publish("efs:" + FS + ":/data", a, false,
        AccessMode.SINGLE_NODE_WRITER)))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.NotFound.class));
    assertThat(a).doesNotExist();

    Files.createDirectories(localRoot.resolve(FS + "/data"));
    Files.writeString(localRoot.resolve(FS + "/data/inside"), "x");
    node.publisher().publish(publish("efs:" + FS + ":/data", a, false, AccessMode.SINGLE_NODE_WRITER));
    assertThat(a.resolve("inside")).exists();
  }

  /** A hand-made handle naming the controller's ledger (or anything below it) is never mounted. */
  @Test
  void theDriversOwnRecordsAreNeverAVolume() throws IOException {
    NodeProvider node = node(false, false);
    Files.createDirectories(localRoot.resolve(FS + "/.efs-csi-volumes"));
    for (String handle : List.of("efs:" + FS + ":/.efs-csi-volumes", "efs:" + FS + ":/a/.efs-csi-x")) {
      Path t = target("pod-ledger");
      assertThatThrownBy(() -> node.publisher().publish(publish(handle, t, false, AccessMode.SINGLE_NODE_WRITER)))
          .as(handle).isInstanceOfSatisfying(DriverException.class, e -> {
            assertThat(e.error()).isInstanceOfSatisfying(DriverError.InvalidArgument.class,
                a -> assertThat(a.field()).isEqualTo("volume_id"));
            assertThat(e.getMessage()).contains(".efs-csi");
          });
      assertThat(t).doesNotExist();
    }
  }

  @Test
  void forcedUnmountModeUnmountsAHealthyMountNormally() {
    NodeProvider node = node(false, true);
    Path a = target("pod-a");
    node.publisher().publish(publish("efs:" + FS, a, false, AccessMode.SINGLE_NODE_WRITER));

    node.publisher().unpublish("efs:" + FS, a);

    assertThat(mounter.inspect(a)).isInstanceOf(MountState.Absent.class);
  }

  @Test
  void statsAreUnknownAtFirstThenMeasuredInTheBackground() throws Exception {
    NodeProvider node = node(true, false);
    Path a = target("pod-a");
    String volume = "efs:" + FS + "::" + AP;
    node.publisher().publish(publish(volume, a, false, AccessMode.SINGLE_NODE_WRITER));
    Files.write(a.resolve("blob"), new byte[300_000]);
    Files.createDirectories(a.resolve("d1/d2"));

    var reader = node.stats().orElseThrow();
    assertThat(reader.stats(volume, a)).isInstanceOf(VolumeStats.Unknown.class);
    VolumeStats stats = awaitMeasured(reader, volume, a);

    assertThat(stats).isInstanceOfSatisfying(VolumeStats.FileSystem.class, fs -> {
      assertThat(fs.usedBytes()).isEqualTo(300_000);
      assertThat(fs.usedInodes()).isEqualTo(4);
      assertThat(fs.totalBytes()).isPositive();
      assertThat(fs.availableBytes()).isPositive();
    });
    node.publisher().unpublish(volume, a);
    assertThatThrownBy(() -> reader.stats(volume, a))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.NotFound.class));
  }

  @Test
  void statsAreOnlyOfferedWhenOptedIn() {
    assertThat(node(false, false).stats()).isEmpty();
  }

  private static VolumeStats awaitMeasured(io.awscsi.core.provider.VolumeStatsReader reader, String volume, Path path)
      throws InterruptedException {
    Instant deadline = Instant.now().plusSeconds(20);
    while (Instant.now().isBefore(deadline)) {
      VolumeStats stats = reader.stats(volume, path);
      if (!(stats instanceof VolumeStats.Unknown)) {
        return stats;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("stats of " + path + " were not measured within 20 s");
  }
}
