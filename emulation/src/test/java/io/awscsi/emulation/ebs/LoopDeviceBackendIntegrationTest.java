package io.awscsi.emulation.ebs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.host.Command;
import io.awscsi.core.host.FsStats;
import io.awscsi.core.host.HostTool;
import io.awscsi.core.host.LoopDevices;
import io.awscsi.core.host.ScratchDisks;
import io.awscsi.ebs.node.VolumeDeviceLocator;
import io.awscsi.ebs.volume.PublishContextKeys;
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
    try (var backend = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.THROW_AWAY)) {
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
      assertThat(locator.locate(VOLUME, Map.of(PublishContextKeys.DEVICE_PATH, link.toString())))
          .isEqualTo(device.toRealPath());
      assertThat(backend.attached(VOLUME, 64 * MIB)).as("attaching twice is the same attachment").isEqualTo(link);
      assertThat(backend.device(VOLUME)).contains(device);
    }
  }

  @Test
  void contentSurvivesDetachAndReattachUntilTheVolumeIsDeleted() throws IOException {
    try (var backend = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.THROW_AWAY)) {
      backend.attached(VOLUME, 16 * MIB);
      writeAt(backend.device(VOLUME).orElseThrow(), "volume content");

      backend.detached(VOLUME);
      assertThat(backend.device(VOLUME)).isEmpty();
      assertThat(state.resolve("by-id").resolve(VolumeDeviceLocator.byIdName(VOLUME))).doesNotExist();
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
    try (var backend = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.THROW_AWAY)) {
      backend.attached(VOLUME, 16 * MIB);

      backend.resized(VOLUME, 48 * MIB);
      assertThat(stats.deviceSize(backend.device(VOLUME).orElseThrow())).isEqualTo(48 * MIB);

      backend.resized(VOLUME, 8 * MIB);
      assertThat(stats.deviceSize(backend.device(VOLUME).orElseThrow())).isEqualTo(48 * MIB);
      backend.resized("vol-0ffffffffffffffff", 8 * MIB); // never attached: nothing to do
    }
  }

  @Test
  void aPersistentBackendLeavesDevicesLinksAndFilesForTheNextProcess() throws IOException {
    var persistent = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.PERSISTENT);
    var link = persistent.attached(VOLUME, 16 * MIB);
    var device = persistent.device(VOLUME).orElseThrow();
    writeAt(device, "kept");

    persistent.close();

    assertThat(loops.find(backingFile(VOLUME))).contains(device);
    assertThat(link.toRealPath()).isEqualTo(device.toRealPath());
    assertThatThrownBy(() -> persistent.attached(VOLUME, MIB)).isInstanceOf(IllegalStateException.class);
    // The next process (a restart) finds the same device and the data on it.
    try (var restarted = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.PERSISTENT)) {
      restarted.attached(VOLUME, 16 * MIB);
      assertThat(restarted.device(VOLUME)).contains(device);
      assertThat(readAt(device, 4)).isEqualTo("kept");
      restarted.deleted(VOLUME);
    }
  }

  @Test
  void aThrowAwayBackendRemovesOnlyTheVolumesItMade() throws IOException {
    var other = "vol-0fedcba9876543210";
    try (var earlier = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.PERSISTENT)) {
      earlier.attached(other, 16 * MIB); // made by another process, which keeps serving it
    }
    var otherDevice = loops.find(backingFile(other)).orElseThrow();
    var ephemeral = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.THROW_AWAY);
    ephemeral.attached(VOLUME, 16 * MIB);
    ephemeral.attached(other, 16 * MIB);

    ephemeral.close();
    ephemeral.close();

    assertThat(loops.find(backingFile(VOLUME))).isEmpty();
    assertThat(backingFile(VOLUME)).doesNotExist();
    assertThat(backingFile(other)).exists();
    assertThat(loops.find(backingFile(other))).contains(otherDevice);
    loops.detach(otherDevice);
  }

  @Test
  void idsThatAreNotVolumeIdsNameNothingToDetachOrDelete() {
    try (var backend = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.THROW_AWAY)) {
      backend.detached("vol-../../x");
      backend.deleted("../../etc/passwd");
      backend.resized("vol-\u0000", MIB);
      assertThat(backend.device("vol-../../x")).isEmpty();
      assertThat(state.resolve("volumes")).isEmptyDirectory();
    }
  }

  @Test
  void refusesIdsThatAreNotVolumeIds() {
    try (var backend = LoopDeviceBackend.open(state, loops, LoopDeviceBackend.Retention.THROW_AWAY)) {
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
