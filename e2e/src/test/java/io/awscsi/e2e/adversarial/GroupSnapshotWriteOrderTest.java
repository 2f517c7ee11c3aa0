package io.awscsi.e2e.adversarial;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CapacityRange;
import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.CreateVolumeGroupSnapshotRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.GroupControllerGrpc;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.Snapshot;
import csi.v1.VolumeCapability;
import csi.v1.VolumeCapability.AccessMode.Mode;
import csi.v1.VolumeContentSource;
import csi.v1.VolumeGroupSnapshot;
import io.awscsi.e2e.adversarial.CsiRequests.AttachedVolume;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A crash-consistent group snapshot keeps the order of writes across its volumes: a writer appends records 0, 1, 2, ...
 * alternately to a log on volume A and a log on volume B (each record fsynced before the next is written) while the
 * group snapshot of A and B is taken; the pair restored from it holds a prefix of the sequence, never record n
 * without every record before it, whichever volume each is on. The built driver serves on loop devices, which the
 * emulation copies at one instant as EC2's CreateSnapshots takes the volumes of one instance.
 */
@Tag("integration")
class GroupSnapshotWriteOrderTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  private static final VolumeCapability EXT4 = CsiRequests.mount("ext4", Mode.SINGLE_NODE_WRITER);

  private record Mounted(String volumeId, Path target) {}

  private static Mounted mount(DriverProcess ebs, AttachedVolume v) {
    Path staging = FX.newDirectory("staging-").resolve("globalmount");
    Path target = FX.newDirectory("pod-").resolve("mount");
    CsiAssert.ok(() -> ebs.node().nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(v.volumeId())
        .putAllPublishContext(v.publishContext()).setStagingTargetPath(staging.toString())
        .setVolumeCapability(EXT4).build()));
    CsiAssert.ok(() -> ebs.node().nodePublishVolume(NodePublishVolumeRequest.newBuilder().setVolumeId(v.volumeId())
        .putAllPublishContext(v.publishContext()).setStagingTargetPath(staging.toString())
        .setTargetPath(target.toString()).setVolumeCapability(EXT4).build()));
    return new Mounted(v.volumeId(), target);
  }

  private static AttachedVolume restore(DriverProcess ebs, String name, String snapshotId) {
    String id = CsiAssert.ok(() -> ebs.controller().createVolume(CreateVolumeRequest.newBuilder().setName(name)
        .addVolumeCapabilities(EXT4).setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(1L << 30))
        .setVolumeContentSource(VolumeContentSource.newBuilder().setSnapshot(
            VolumeContentSource.SnapshotSource.newBuilder().setSnapshotId(snapshotId))).build()))
        .getVolume().getVolumeId();
    Map<String, String> context = CsiAssert.ok(() -> ebs.controller().controllerPublishVolume(
        ControllerPublishVolumeRequest.newBuilder().setVolumeId(id).setNodeId(FX.nodeId()).setVolumeCapability(EXT4)
            .build())).getPublishContextMap();
    return new AttachedVolume(id, context);
  }

  private static void append(FileChannel log, int record) {
    try {
      log.write(ByteBuffer.wrap((record + "\n").getBytes(StandardCharsets.US_ASCII)));
      log.force(true);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<Integer> records(Path log) throws IOException {
    List<Integer> found = new ArrayList<>();
    for (String line : Files.readAllLines(log)) {
      if (line.matches("[0-9]+")) {
        found.add(Integer.parseInt(line));
      }
    }
    return found;
  }

  @Test
  void theRestoredPairHoldsAPrefixOfTheInterleavedWrites() throws Exception {
    DriverProcess ebs = FX.start(Driver.EBS, DriverFixture.Mode.ALL);
    Mounted a = mount(ebs, CsiRequests.createAndAttach(ebs, FX.nodeId(), "order-a", EXT4));
    Mounted b = mount(ebs, CsiRequests.createAndAttach(ebs, FX.nodeId(), "order-b", EXT4));

    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger written = new AtomicInteger();
    Thread writer = Thread.ofPlatform().name("interleaved-writer").start(() -> {
      try (FileChannel logA = FileChannel.open(a.target().resolve("log"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE, StandardOpenOption.APPEND);
          FileChannel logB = FileChannel.open(b.target().resolve("log"), StandardOpenOption.CREATE,
              StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
        for (int n = 0; !stop.get(); n++) {
          append(n % 2 == 0 ? logA : logB, n);
          written.set(n + 1);
        }
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    while (written.get() < 200) {
      Thread.sleep(10);
    }
    VolumeGroupSnapshot group = CsiAssert.ok(() -> GroupControllerGrpc.newBlockingStub(ebs.channel())
        .withDeadlineAfter(90, TimeUnit.SECONDS).createVolumeGroupSnapshot(CreateVolumeGroupSnapshotRequest
            .newBuilder().setName("order-group").addSourceVolumeIds(a.volumeId()).addSourceVolumeIds(b.volumeId())
            .build())).getGroupSnapshot();
    int atSnapshot = written.get();
    while (written.get() < atSnapshot + 200) {
      Thread.sleep(10);
    }
    stop.set(true);
    writer.join(30_000);
    assertThat(writer.isAlive()).isFalse();

    assertThat(ebs.log()).as("both file systems were frozen for the copies")
        .contains("at one instant (2 file system(s) frozen)");
    assertThat(group.getSnapshotsList()).extracting(Snapshot::getSourceVolumeId)
        .containsExactlyInAnyOrder(a.volumeId(), b.volumeId());
    String snapA = group.getSnapshotsList().stream().filter(s -> s.getSourceVolumeId().equals(a.volumeId()))
        .findFirst().orElseThrow().getSnapshotId();
    String snapB = group.getSnapshotsList().stream().filter(s -> s.getSourceVolumeId().equals(b.volumeId()))
        .findFirst().orElseThrow().getSnapshotId();
    Mounted restoredA = mount(ebs, restore(ebs, "order-a-restored", snapA));
    Mounted restoredB = mount(ebs, restore(ebs, "order-b-restored", snapB));

    List<Integer> fromA = records(restoredA.target().resolve("log"));
    List<Integer> fromB = records(restoredB.target().resolve("log"));
    assertThat(fromA).allMatch(n -> n % 2 == 0);
    assertThat(fromB).allMatch(n -> n % 2 == 1);
    TreeSet<Integer> union = new TreeSet<>(fromA);
    union.addAll(fromB);
    assertThat(union).as("records in the restored pair (A %s..., B %s...)", fromA.size(), fromB.size())
        .hasSizeGreaterThanOrEqualTo(200);
    assertThat(union.last()).as("a prefix: no record without every one before it, on either volume")
        .isEqualTo(union.size() - 1);
    assertThat(union.size()).as("taken while the writer ran, not after it").isLessThan(written.get());
  }
}
