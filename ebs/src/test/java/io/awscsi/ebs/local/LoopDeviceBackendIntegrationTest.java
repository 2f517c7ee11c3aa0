package io.awscsi.ebs.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.host.Command;
import io.awscsi.core.host.FsStats;
import io.awscsi.core.host.HostTool;
import io.awscsi.core.host.LoopDevices;
import io.awscsi.core.host.ScratchDisks;
import io.awscsi.ebs.node.NvmeDeviceLocator;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The local backend's attachment lifecycle on real loop devices. */
@Tag("integration")
class LoopDeviceBackendIntegrationTest {

  private static final long MIB = 1024 * 1024;
  private static final String VOLUME = "vol-0123456789abcdef0";

  private ScratchDisks scratch;
  private LoopDevices loops;
  private FsStats stats;
  private Path state;

  @BeforeEach
  void setUp() {
    scratch = new ScratchDisks();
    loops = new LoopDevices(scratch.runner());
    stats = new FsStats(scratch.runner());
    state = scratch.root().resolve("state");
  }

  @AfterEach
  void tearDown() {
    scratch.close();
  }

  private Path backingFile(String volumeId) {
    return state.resolve("volumes").resolve(volumeId + ".img");
  }

  @Test
  void anAttachedVolumeIsASparseLoopDeviceFoundByTheLocator() throws IOException {
    try (var backend = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.DELETE_FILES)) {
      var link = backend.attached(VOLUME, 64 * MIB);

      var device = backend.device(VOLUME).orElseThrow();
      assertThat(link.getFileName().toString()).isEqualTo("nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0");
      assertThat(link.toRealPath()).isEqualTo(device.toRealPath());
      assertThat(stats.deviceSize(device)).isEqualTo(64 * MIB);
      var allocatedBlocks = scratch.runner().run(Command.of(HostTool.STAT, "-c", "%b", backingFile(VOLUME).toString()))
          .stdout().strip();
      assertThat(Long.parseLong(allocatedBlocks)).as("sparse: 512-byte blocks allocated").isLessThan(64);
      var locator = backend.locator(Duration.ofMillis(200));
      assertThat(locator.locate(VOLUME, Map.of())).isEqualTo(device.toRealPath());
      assertThat(locator.locate(VOLUME, Map.of(NvmeDeviceLocator.DEVICE_PATH_KEY, link.toString())))
          .isEqualTo(device.toRealPath());
      assertThat(backend.attached(VOLUME, 64 * MIB)).as("attaching twice is the same attachment").isEqualTo(link);
      assertThat(backend.device(VOLUME)).contains(device);
    }
  }

  @Test
  void contentSurvivesDetachAndReattachUntilTheVolumeIsDeleted() throws IOException {
    try (var backend = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.DELETE_FILES)) {
      backend.attached(VOLUME, 16 * MIB);
      writeAt(backend.device(VOLUME).orElseThrow(), "volume content");

      backend.detached(VOLUME);
      assertThat(backend.device(VOLUME)).isEmpty();
      assertThat(state.resolve("by-id").resolve(NvmeDeviceLocator.byIdName(VOLUME))).doesNotExist();
      assertThat(backingFile(VOLUME)).exists();

      backend.attached(VOLUME, 16 * MIB);
      assertThat(readAt(backend.device(VOLUME).orElseThrow(), 14)).isEqualTo("volume content");

      backend.deleted(VOLUME);
      assertThat(backend.device(VOLUME)).isEmpty();
      assertThat(backingFile(VOLUME)).doesNotExist();
    }
  }

  @Test
  void aResizedVolumeGrowsItsAttachedDeviceAndNeverShrinks() {
    try (var backend = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.DELETE_FILES)) {
      backend.attached(VOLUME, 16 * MIB);

      backend.resized(VOLUME, 48 * MIB);
      assertThat(stats.deviceSize(backend.device(VOLUME).orElseThrow())).isEqualTo(48 * MIB);

      backend.resized(VOLUME, 8 * MIB);
      assertThat(stats.deviceSize(backend.device(VOLUME).orElseThrow())).isEqualTo(48 * MIB);
      backend.resized("vol-0ffffffffffffffff", 8 * MIB); // never attached: nothing to do
    }
  }

  @Test
  void closeReleasesEveryDeviceAndHonoursRetention() throws IOException {
    var other = "vol-0fedcba9876543210";
    var kept = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.KEEP_FILES);
    kept.attached(VOLUME, 16 * MIB);
    kept.attached(other, 16 * MIB);

    kept.close();

    assertThat(loops.find(backingFile(VOLUME))).isEmpty();
    assertThat(loops.find(backingFile(other))).isEmpty();
    assertThat(backingFile(VOLUME)).exists();
    assertThatThrownBy(() -> kept.attached(VOLUME, MIB)).isInstanceOf(IllegalStateException.class);

    var ephemeral = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.DELETE_FILES);
    ephemeral.attached(VOLUME, 16 * MIB);
    ephemeral.close();
    ephemeral.close();
    assertThat(loops.find(backingFile(VOLUME))).isEmpty();
    assertThat(backingFile(VOLUME)).doesNotExist();
    assertThat(backingFile(other)).doesNotExist();
  }

  @Test
  void refusesIdsThatAreNotVolumeIds() {
    try (var backend = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.DELETE_FILES)) {
      assertThatThrownBy(() -> backend.attached("../../etc/passwd", MIB))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an EBS volume id");
    }
  }

  private static void writeAt(Path device, String text) throws IOException {
    try (var raw = new RandomAccessFile(device.toFile(), "rw")) {
      raw.write(text.getBytes());
    }
  }

  private static String readAt(Path device, int length) throws IOException {
    try (var raw = new RandomAccessFile(device.toFile(), "r")) {
      var bytes = new byte[length];
      raw.readFully(bytes);
      return new String(bytes);
    }
  }
}
