package io.awscsi.emulation.ebs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.HostTool;
import io.awscsi.core.host.LoopDevices;
import io.awscsi.core.host.RecordingCommandRunner;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.CapabilityCheck;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.ControllerProvider;
import io.awscsi.core.provider.ExpandRequest;
import io.awscsi.core.provider.ExpandResult;
import io.awscsi.core.provider.Page;
import io.awscsi.core.provider.PublishRequest;
import io.awscsi.core.provider.PublishedVolume;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.provider.Snapshot;
import io.awscsi.core.provider.SnapshotManager;
import io.awscsi.core.provider.SnapshotQuery;
import io.awscsi.core.provider.SnapshotRequest;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeAttacher;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeExpander;
import io.awscsi.core.provider.VolumeLister;
import io.awscsi.core.provider.VolumeProvisioner;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.ebs.node.VolumeDeviceLocator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop mirror as a decorator of driver-core's seams: what the wrapped controller did successfully reaches the
 * backing files, what failed does not, and a mirror that cannot attach fails the call retryably. losetup is answered
 * by a recording runner, so the files and links are real and the devices are not.
 */
class LoopMirroredControllerTest {

  /** Sizes are small: the backing files are real, and a snapshot copies one. */
  private static final long MIB = 1L << 20;
  private static final String VOL = "vol-0123456789abcdef0";
  private static final String CLONE = "vol-0123456789abcdef1";
  private static final String SNAP = "snap-0123456789abcdef0";
  private static final VolumeCapability MOUNT = VolumeCapability.mount(AccessMode.SINGLE_NODE_WRITER, "ext4");

  @TempDir Path state;
  private final RecordingCommandRunner runner = new RecordingCommandRunner()
      .on(c -> c.tool() == HostTool.LOSETUP && c.commandLine().contains("--find"),
          c -> RecordingCommandRunner.Reply.ok("/dev/loop7\n"));
  private final FakeController cloud = new FakeController();
  private LoopDeviceBackend loops;
  private ControllerProvider controller;

  @BeforeEach
  void open() {
    loops = LoopDeviceBackend.open(state, new LoopDevices(runner), LoopDeviceBackend.Retention.PERSISTENT);
    controller = new LoopMirroredController(cloud, loops);
  }

  @AfterEach
  void close() {
    loops.close();
  }

  private Path file(String id) {
    return state.resolve(id.startsWith("snap-") ? "snapshots" : "volumes").resolve(id + ".img");
  }

  private Path link(String volumeId) {
    return state.resolve("by-id").resolve(VolumeDeviceLocator.byIdName(volumeId));
  }

  private Map<String, String> publish(String volumeId) {
    return controller.attacher().orElseThrow().publish(new PublishRequest(volumeId, "i-1", MOUNT, false, Map.of(),
        Map.of()));
  }

  private Volume create(String name, VolumeSource source) {
    return controller.provisioner().createVolume(new VolumeRequest(name, CapacityRange.UNSPECIFIED, List.of(MOUNT),
        Map.of(), Map.of(), Map.of(), source, TopologyRequirement.NONE));
  }

  @Test
  void anUnseenVolumeIsAttachedAtTheSizeGetVolumeTellsAndTheAnswerIsTheControllers() throws IOException {
    cloud.sizes.put(VOL, 2 * MIB);
    assertThat(publish(VOL)).isEqualTo(Map.of("devicePath", "/dev/xvdaa"));
    assertThat(Files.size(file(VOL))).isEqualTo(2 * MIB);
    assertThat(cloud.getVolumeCalls).as("a volume made by an earlier process").isEqualTo(1);
    assertThat(Files.readSymbolicLink(link(VOL))).isEqualTo(Path.of("/dev/loop7"));

    controller.attacher().orElseThrow().unpublish(VOL, "i-1", Map.of());
    assertThat(link(VOL)).doesNotExist();
    assertThat(file(VOL)).as("the data outlives the detach").exists();
  }

  @Test
  void eachInstanceSeesOnlyItsOwnAttachmentsAndTheDeviceStaysWhileOneHoldsIt() throws IOException {
    cloud.sizes.put(VOL, MIB);
    publish(VOL);
    controller.attacher().orElseThrow().publish(new PublishRequest(VOL, "i-2", MOUNT, false, Map.of(), Map.of()));
    Path one = state.resolve("by-instance/i-1").resolve(VolumeDeviceLocator.byIdName(VOL));
    Path two = state.resolve("by-instance/i-2").resolve(VolumeDeviceLocator.byIdName(VOL));
    assertThat(Files.readSymbolicLink(one)).isEqualTo(Path.of("/dev/loop7"));
    assertThat(Files.readSymbolicLink(two)).isEqualTo(Path.of("/dev/loop7"));
    assertThat(state.resolve("by-instance/i-3")).as("an instance it was never attached to").doesNotExist();

    // From here losetup reports the file attached as /dev/loop7, so a release would detach it.
    runner.on(c -> c.tool() == HostTool.LOSETUP && c.commandLine().contains("--associated"),
        c -> RecordingCommandRunner.Reply.ok("/dev/loop7\n"));
    controller.attacher().orElseThrow().unpublish(VOL, "i-1", Map.of());
    assertThat(one).doesNotExist();
    assertThat(two).as("still attached to i-2 (Multi-Attach)").exists();
    assertThat(runner.commandLines(HostTool.LOSETUP)).noneMatch(c -> c.contains("--detach"));

    controller.attacher().orElseThrow().unpublish(VOL, "i-2", Map.of());
    assertThat(two).doesNotExist();
    assertThat(link(VOL)).as("the last detach releases the volume").doesNotExist();
    assertThat(runner.commandLines(HostTool.LOSETUP)).anyMatch(c -> c.contains("--detach /dev/loop7"));
  }

  @Test
  void aVolumeCreatedOrExpandedHereIsAttachedAtTheSizeSeenWithoutAskingAgain() throws IOException {
    cloud.nextVolume = CLONE;
    create("pvc-new", new VolumeSource.Empty());
    controller.expander().orElseThrow().expand(new ExpandRequest(CLONE, new CapacityRange(4 * MIB, 0), MOUNT,
        Map.of()));
    cloud.sizes.put(CLONE, 9 * MIB); // what GET_VOLUME would say: not asked
    publish(CLONE);
    assertThat(Files.size(file(CLONE))).isEqualTo(4 * MIB);
    assertThat(cloud.getVolumeCalls).isZero();
  }

  @Test
  void whatTheControllerRefusedIsNotMirrored() {
    cloud.failing = true;
    cloud.sizes.put(VOL, MIB);
    assertThatThrownBy(() -> publish(VOL)).isInstanceOf(DriverException.class);
    assertThat(file(VOL)).doesNotExist();
    assertThat(runner.commands()).isEmpty();
  }

  @Test
  void anAttachTheBackendCannotMirrorIsUnavailableSoTheCoRetries() {
    runner.on(HostTool.LOSETUP, RecordingCommandRunner.Reply.exit(1, "losetup: no free loop device"));
    cloud.sizes.put(VOL, MIB);
    assertThatThrownBy(() -> publish(VOL)).isInstanceOfSatisfying(DriverException.class,
        e -> assertThat(e.error()).isInstanceOf(DriverError.Unavailable.class));
  }

  @Test
  void anIdOfAnotherShapeNeverReachesTheBackend() {
    cloud.sizes.put("pv-1", MIB);
    assertThat(publish("pv-1")).containsKey("devicePath");
    controller.provisioner().deleteVolume("pv-1", Map.of());
    assertThat(runner.commands()).isEmpty();
  }

  @Test
  void anExpansionGrowsTheBackingFile() throws IOException {
    cloud.sizes.put(VOL, MIB);
    publish(VOL);
    ExpandResult grown = controller.expander().orElseThrow().expand(new ExpandRequest(VOL,
        new CapacityRange(3 * MIB, 0), MOUNT, Map.of()));
    assertThat(grown.capacityBytes()).isEqualTo(3 * MIB);
    assertThat(Files.size(file(VOL))).isEqualTo(3 * MIB);
  }

  @Test
  void snapshotsAndRestoresCarryTheContentAndDeletesRemoveIt() throws IOException {
    cloud.sizes.put(VOL, MIB);
    publish(VOL);
    Files.write(file(VOL), "data".getBytes(), java.nio.file.StandardOpenOption.WRITE);
    controller.snapshots().orElseThrow().createSnapshot(new SnapshotRequest(VOL, "snapshot-1", Map.of(), Map.of()));
    assertThat(file(SNAP)).exists();

    cloud.nextVolume = CLONE;
    create("pvc-restored", new VolumeSource.FromSnapshot(SNAP));
    try (var in = Files.newInputStream(file(CLONE))) {
      assertThat(new String(in.readNBytes(4))).isEqualTo("data");
    }

    controller.snapshots().orElseThrow().deleteSnapshot(SNAP, Map.of());
    assertThat(file(SNAP)).doesNotExist();
    controller.provisioner().deleteVolume(CLONE, Map.of());
    assertThat(file(CLONE)).doesNotExist();

    cloud.failing = true;
    assertThatThrownBy(() -> controller.provisioner().deleteVolume(VOL, Map.of()))
        .isInstanceOf(DriverException.class);
    assertThat(file(VOL)).as("a delete the controller refused keeps the data").exists();
  }

  @Test
  void theOtherPartsAreTheControllersOwn() {
    assertThat(controller.lister()).containsSame(cloud.lister);
    assertThat(controller.modifier()).isEmpty();
    assertThat(controller.readiness()).isInstanceOf(Readiness.Ready.class);
    assertThat(controller.provisioner().supportsSnapshotSource()).isTrue();
  }

  /** A controller answering from maps: volumes with sizes, every call failing when told to. */
  private static final class FakeController implements ControllerProvider {
    final Map<String, Long> sizes = new HashMap<>();
    int getVolumeCalls;
    boolean failing;
    String nextVolume = VOL;

    private void check() {
      if (failing) {
        throw DriverException.failedPrecondition("the fake cloud refuses");
      }
    }

    private Volume volume(String id) {
      return new Volume(id, sizes.getOrDefault(id, MIB), Map.of(), List.of(), new VolumeSource.Empty());
    }

    final VolumeLister lister = new VolumeLister() {
      @Override
      public Page<PublishedVolume> listVolumes(int maxEntries, String startingToken) {
        return new Page<>(sizes.keySet().stream().map(id -> new PublishedVolume(volume(id), List.of())).toList(), "");
      }

      @Override
      public PublishedVolume getVolume(String volumeId) {
        getVolumeCalls++;
        return new PublishedVolume(volume(volumeId), List.of());
      }
    };

    @Override
    public VolumeProvisioner provisioner() {
      return new VolumeProvisioner() {
        @Override
        public Volume createVolume(VolumeRequest request) {
          check();
          sizes.put(nextVolume, MIB);
          return volume(nextVolume);
        }

        @Override
        public void deleteVolume(String volumeId, Map<String, String> secrets) {
          check();
          sizes.remove(volumeId);
        }

        @Override
        public CapabilityCheck validateCapabilities(String volumeId, List<VolumeCapability> capabilities,
            Map<String, String> volumeContext, Map<String, String> parameters) {
          return new CapabilityCheck.Confirmed();
        }

        @Override
        public boolean supportsSnapshotSource() {
          return true;
        }
      };
    }

    @Override
    public Optional<VolumeAttacher> attacher() {
      return Optional.of(new VolumeAttacher() {
        @Override
        public Map<String, String> publish(PublishRequest request) {
          check();
          return Map.of("devicePath", "/dev/xvdaa");
        }

        @Override
        public void unpublish(String volumeId, String nodeId, Map<String, String> secrets) {
          check();
        }
      });
    }

    @Override
    public Optional<VolumeExpander> expander() {
      return Optional.of(request -> {
        check();
        sizes.put(request.volumeId(), request.capacity().requiredBytes());
        return new ExpandResult(request.capacity().requiredBytes(), true);
      });
    }

    @Override
    public Optional<SnapshotManager> snapshots() {
      return Optional.of(new SnapshotManager() {
        @Override
        public Snapshot createSnapshot(SnapshotRequest request) {
          check();
          return new Snapshot(SNAP, request.sourceVolumeId(), MIB, Instant.EPOCH, true);
        }

        @Override
        public void deleteSnapshot(String snapshotId, Map<String, String> secrets) {
          check();
        }

        @Override
        public Page<Snapshot> listSnapshots(SnapshotQuery query) {
          return new Page<>(List.of(), "");
        }
      });
    }

    @Override
    public Optional<VolumeLister> lister() {
      return Optional.of(lister);
    }

    @Override
    public Readiness readiness() {
      return Readiness.ready();
    }
  }
}
