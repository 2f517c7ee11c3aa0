package io.awscsi.local;

import csi.v1.ControllerExpandVolumeRequest;
import csi.v1.ControllerGrpc;
import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.ControllerUnpublishVolumeRequest;
import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeGetInfoRequest;
import csi.v1.NodeGrpc;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.NodeUnpublishVolumeRequest;
import csi.v1.NodeUnstageVolumeRequest;
import csi.v1.Topology;
import csi.v1.TopologyRequirement;
import csi.v1.VolumeCapability;
import csi.v1.VolumeContentSource;
import io.awscsi.aws.metadata.NodeTopology;
import io.awscsi.core.server.CsiEndpoint;
import io.awscsi.realism.CallStats;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Walks volumes through their whole life against running drivers over their sockets, printing each step as it
 * happens (CSI call, AWS calls it caused, duration, outcome) and ending with a summary table. It undoes what it
 * created even when a step fails, so nothing is left behind.
 */
public final class LifecycleWalkthrough {

  private static final long GIB = 1L << 30;
  private static final String PAYLOAD = "written by the aws-csi-java lifecycle walkthrough\n";

  private final LocalAws aws;
  private final Path workDir;
  private final PrintStream out;
  private final List<LifecycleStep> steps = new ArrayList<>();
  private final Deque<Runnable> undo = new ArrayDeque<>();

  public LifecycleWalkthrough(LocalAws aws, Path workDir, PrintStream out) {
    this.aws = aws;
    this.workDir = workDir;
    this.out = out;
  }

  public List<LifecycleStep> steps() {
    return List.copyOf(steps);
  }

  /** EBS: create, attach, stage (mkfs), publish, write, expand, snapshot, restore, read back, tear everything down. */
  public void runEbs(CsiEndpoint endpoint) {
    ManagedChannel channel = channel(endpoint);
    try {
      var controller = ControllerGrpc.newBlockingStub(channel);
      var node = NodeGrpc.newBlockingStub(channel);
      String nodeId = step("ebs", "node identity", "NodeGetInfo",
          () -> node.withDeadlineAfter(30, TimeUnit.SECONDS).nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()),
          r -> "node " + r.getNodeId() + ", max volumes " + r.getMaxVolumesPerNode() + ", topology "
              + r.getAccessibleTopology().getSegmentsMap()).getNodeId();
      VolumeCapability xfs = VolumeCapability.newBuilder()
          .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
          .setMount(VolumeCapability.MountVolume.newBuilder().setFsType("xfs")).build();
      TopologyRequirement zone = TopologyRequirement.newBuilder().addPreferred(
          Topology.newBuilder().putSegments(NodeTopology.WELL_KNOWN_ZONE_KEY, LocalAws.ZONE)).build();

      var created = step("ebs", "create a 1 GiB gp3 volume", "CreateVolume",
          () -> controller.withDeadlineAfter(2, TimeUnit.MINUTES).createVolume(CreateVolumeRequest.newBuilder()
              .setName("pvc-local-walkthrough-1").addVolumeCapabilities(xfs)
              .setCapacityRange(csi.v1.CapacityRange.newBuilder().setRequiredBytes(GIB))
              .putParameters("type", "gp3").putParameters("csi.storage.k8s.io/fstype", "xfs")
              .setAccessibilityRequirements(zone).build()),
          r -> r.getVolume().getVolumeId() + " in " + r.getVolume().getAccessibleTopology(0).getSegmentsMap());
      String vol1 = created.getVolume().getVolumeId();
      undo.push(() -> quietly("ebs", "delete " + vol1, "DeleteVolume", () ->
          controller.withDeadlineAfter(2, TimeUnit.MINUTES).deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(vol1).build())));
      Path staging1 = dir("staging/" + vol1);
      Path target1 = workDir.resolve("pods/pod-a/" + vol1);
      attachStagePublish(controller, node, vol1, nodeId, xfs, staging1, target1);

      step("ebs", "write a file in the volume", "(pod write)", () -> write(target1.resolve("hello.txt")),
          p -> p.getFileName() + " (" + PAYLOAD.length() + " bytes)");

      long before = totalSpace(target1);
      step("ebs", "grow the volume to 2 GiB", "ControllerExpandVolume",
          () -> controller.withDeadlineAfter(2, TimeUnit.MINUTES).controllerExpandVolume(
              ControllerExpandVolumeRequest.newBuilder().setVolumeId(vol1).setVolumeCapability(xfs)
                  .setCapacityRange(csi.v1.CapacityRange.newBuilder().setRequiredBytes(2 * GIB)).build()),
          r -> "capacity " + r.getCapacityBytes() / GIB + " GiB, node expansion " + r.getNodeExpansionRequired());
      step("ebs", "grow the mounted file system", "NodeExpandVolume",
          () -> node.withDeadlineAfter(2, TimeUnit.MINUTES).nodeExpandVolume(NodeExpandVolumeRequest.newBuilder()
              .setVolumeId(vol1).setVolumePath(target1.toString()).setStagingTargetPath(staging1.toString())
              .setVolumeCapability(xfs)
              .setCapacityRange(csi.v1.CapacityRange.newBuilder().setRequiredBytes(2 * GIB)).build()),
          r -> {
            long after = totalSpace(target1);
            if (after <= before) {
              throw new IllegalStateException("file system did not grow: " + before + " -> " + after + " bytes");
            }
            return "file system " + mib(before) + " MiB -> " + mib(after) + " MiB";
          });

      var snapshot = step("ebs", "snapshot the volume", "CreateSnapshot",
          () -> controller.withDeadlineAfter(2, TimeUnit.MINUTES).createSnapshot(CreateSnapshotRequest.newBuilder()
              .setName("snapshot-local-walkthrough-1").setSourceVolumeId(vol1).build()),
          r -> r.getSnapshot().getSnapshotId() + " ready=" + r.getSnapshot().getReadyToUse());
      String snapId = snapshot.getSnapshot().getSnapshotId();
      undo.push(() -> quietly("ebs", "delete " + snapId, "DeleteSnapshot", () ->
          controller.withDeadlineAfter(1, TimeUnit.MINUTES).deleteSnapshot(
              DeleteSnapshotRequest.newBuilder().setSnapshotId(snapId).build())));
      step("ebs", "wait until the snapshot is ready", "ListSnapshots", () -> waitReady(controller, snapId),
          ready -> "ready_to_use after " + ready + " polls");

      var restored = step("ebs", "restore a volume from the snapshot", "CreateVolume",
          () -> controller.withDeadlineAfter(2, TimeUnit.MINUTES).createVolume(CreateVolumeRequest.newBuilder()
              .setName("pvc-local-walkthrough-2").addVolumeCapabilities(xfs)
              .setCapacityRange(csi.v1.CapacityRange.newBuilder().setRequiredBytes(2 * GIB))
              .putParameters("type", "gp3").setAccessibilityRequirements(zone)
              .setVolumeContentSource(VolumeContentSource.newBuilder().setSnapshot(
                  VolumeContentSource.SnapshotSource.newBuilder().setSnapshotId(snapId))).build()),
          r -> r.getVolume().getVolumeId() + " from " + snapId);
      String vol2 = restored.getVolume().getVolumeId();
      undo.push(() -> quietly("ebs", "delete " + vol2, "DeleteVolume", () ->
          controller.withDeadlineAfter(2, TimeUnit.MINUTES).deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(vol2).build())));
      Path staging2 = dir("staging/" + vol2);
      Path target2 = workDir.resolve("pods/pod-b/" + vol2);
      attachStagePublish(controller, node, vol2, nodeId, xfs, staging2, target2);
      step("ebs", "read the file back from the restored volume", "(pod read)", () -> read(target2.resolve("hello.txt")),
          text -> {
            if (!text.equals(PAYLOAD)) {
              throw new IllegalStateException("restored file differs: '" + text + "'");
            }
            return "same " + text.length() + " bytes";
          });
    } finally {
      undoAll();
      channel.shutdownNow();
    }
  }

  private void attachStagePublish(ControllerGrpc.ControllerBlockingStub controller, NodeGrpc.NodeBlockingStub node,
      String volumeId, String nodeId, VolumeCapability cap, Path staging, Path target) {
    var published = step("ebs", "attach " + volumeId + " to this node", "ControllerPublishVolume",
        () -> controller.withDeadlineAfter(6, TimeUnit.MINUTES).controllerPublishVolume(
            ControllerPublishVolumeRequest.newBuilder().setVolumeId(volumeId).setNodeId(nodeId)
                .setVolumeCapability(cap).build()),
        r -> "publish_context " + r.getPublishContextMap());
    undo.push(() -> quietly("ebs", "detach " + volumeId, "ControllerUnpublishVolume", () ->
        controller.withDeadlineAfter(6, TimeUnit.MINUTES).controllerUnpublishVolume(
            ControllerUnpublishVolumeRequest.newBuilder().setVolumeId(volumeId).setNodeId(nodeId).build())));
    step("ebs", "stage " + volumeId + " (find device, mkfs, mount)", "NodeStageVolume",
        () -> node.withDeadlineAfter(2, TimeUnit.MINUTES).nodeStageVolume(NodeStageVolumeRequest.newBuilder()
            .setVolumeId(volumeId).putAllPublishContext(published.getPublishContextMap())
            .setStagingTargetPath(staging.toString()).setVolumeCapability(cap).build()),
        r -> "mounted at " + staging);
    undo.push(() -> quietly("ebs", "unstage " + volumeId, "NodeUnstageVolume", () ->
        node.withDeadlineAfter(2, TimeUnit.MINUTES).nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder()
            .setVolumeId(volumeId).setStagingTargetPath(staging.toString()).build())));
    step("ebs", "publish " + volumeId + " to a pod", "NodePublishVolume",
        () -> node.withDeadlineAfter(2, TimeUnit.MINUTES).nodePublishVolume(NodePublishVolumeRequest.newBuilder()
            .setVolumeId(volumeId).putAllPublishContext(published.getPublishContextMap())
            .setStagingTargetPath(staging.toString()).setTargetPath(target.toString()).setVolumeCapability(cap).build()),
        r -> "bind-mounted at " + target);
    undo.push(() -> quietly("ebs", "unpublish " + volumeId, "NodeUnpublishVolume", () ->
        node.withDeadlineAfter(2, TimeUnit.MINUTES).nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder()
            .setVolumeId(volumeId).setTargetPath(target.toString()).build())));
  }

  /** EFS: create an access point, publish it to two targets (ReadWriteMany), share a file, tear down. */
  public void runEfs(CsiEndpoint endpoint) {
    ManagedChannel channel = channel(endpoint);
    try {
      var controller = ControllerGrpc.newBlockingStub(channel);
      var node = NodeGrpc.newBlockingStub(channel);
      VolumeCapability rwx = VolumeCapability.newBuilder()
          .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(VolumeCapability.AccessMode.Mode.MULTI_NODE_MULTI_WRITER))
          .setMount(VolumeCapability.MountVolume.getDefaultInstance()).build();
      var created = step("efs", "create an access-point volume", "CreateVolume",
          () -> controller.withDeadlineAfter(2, TimeUnit.MINUTES).createVolume(CreateVolumeRequest.newBuilder()
              .setName("pvc-local-walkthrough-efs").addVolumeCapabilities(rwx)
              .setCapacityRange(csi.v1.CapacityRange.newBuilder().setRequiredBytes(5 * GIB))
              .putParameters("provisioningMode", "efs-ap").putParameters("fileSystemId", aws.fileSystemId())
              .putParameters("directoryPerms", "700").build()),
          r -> r.getVolume().getVolumeId());
      String volumeId = created.getVolume().getVolumeId();
      undo.push(() -> quietly("efs", "delete " + volumeId, "DeleteVolume", () ->
          controller.withDeadlineAfter(2, TimeUnit.MINUTES).deleteVolume(
              DeleteVolumeRequest.newBuilder().setVolumeId(volumeId).build())));
      Path targetA = workDir.resolve("pods/efs-a/volume");
      Path targetB = workDir.resolve("pods/efs-b/volume");
      for (Path target : List.of(targetA, targetB)) {
        step("efs", "publish to " + target.getParent().getFileName(), "NodePublishVolume",
            () -> node.withDeadlineAfter(2, TimeUnit.MINUTES).nodePublishVolume(NodePublishVolumeRequest.newBuilder()
                .setVolumeId(volumeId).setTargetPath(target.toString()).setVolumeCapability(rwx)
                .putAllVolumeContext(created.getVolume().getVolumeContextMap()).build()),
            r -> "mounted at " + target);
        undo.push(() -> quietly("efs", "unpublish " + target.getParent().getFileName(), "NodeUnpublishVolume", () ->
            node.withDeadlineAfter(2, TimeUnit.MINUTES).nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder()
                .setVolumeId(volumeId).setTargetPath(target.toString()).build())));
        if (target == targetA) {
          step("efs", "write a file through the first pod", "(pod write)", () -> write(targetA.resolve("shared.txt")),
              p -> p.getFileName().toString());
        }
      }
      step("efs", "read it through the second pod (ReadWriteMany)", "(pod read)", () -> read(targetB.resolve("shared.txt")),
          text -> {
            if (!text.equals(PAYLOAD)) {
              throw new IllegalStateException("second target does not see the file");
            }
            return "same " + text.length() + " bytes";
          });
    } finally {
      undoAll();
      channel.shutdownNow();
    }
  }

  /** The summary: steps, total duration, AWS calls by API. */
  public void printSummary() {
    Map<String, Long> byApi = new TreeMap<>();
    Duration total = Duration.ZERO;
    long failed = 0;
    for (LifecycleStep s : steps) {
      s.awsCalls().forEach((api, n) -> byApi.merge(api, n, Long::sum));
      total = total.plus(s.duration());
      failed += s.ok() ? 0 : 1;
    }
    out.println();
    out.println("Summary: " + steps.size() + " steps, " + failed + " failed, " + total.toMillis() + " ms in CSI calls");
    out.printf("%-10s %-52s %-28s %8s  %s%n", "driver", "step", "CSI call", "ms", "outcome");
    for (LifecycleStep s : steps) {
      out.printf("%-10s %-52s %-28s %8d  %s%n", s.driver(), truncate(s.name(), 52), s.rpc(), s.duration().toMillis(),
          s.outcome());
    }
    out.println();
    out.printf("%-36s %6s%n", "AWS API", "calls");
    byApi.forEach((api, n) -> out.printf("%-36s %6d%n", api, n));
    out.printf("%-36s %6d%n", "total", byApi.values().stream().mapToLong(Long::longValue).sum());
  }

  private <T> T step(String driver, String name, String rpc, Supplier<T> call, Function<T, String> detail) {
    CallStats before = aws.stats();
    long start = System.nanoTime();
    T result;
    String text;
    try {
      result = call.get();
      text = detail.apply(result);
    } catch (RuntimeException e) {
      record(driver, name, rpc, start, before, "FAILED", describe(e));
      throw e;
    }
    record(driver, name, rpc, start, before, "OK", text);
    return result;
  }

  private void quietly(String driver, String name, String rpc, Runnable call) {
    try {
      step(driver, name, rpc, () -> {
        call.run();
        return "";
      }, r -> "done");
    } catch (RuntimeException e) {
      // Recorded as a failed step; keep undoing the rest.
    }
  }

  private void undoAll() {
    while (!undo.isEmpty()) {
      undo.pop().run();
    }
  }

  private void record(String driver, String name, String rpc, long start, CallStats before, String outcome,
      String detail) {
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    Map<String, Long> calls = diff(before, aws.stats());
    LifecycleStep step = new LifecycleStep(driver, name, rpc, took, calls, outcome, detail);
    steps.add(step);
    out.printf("[%s] %-2d %-28s %6d ms  %-6s %s%s%n", driver, steps.size(), rpc, took.toMillis(), outcome, detail,
        calls.isEmpty() ? "" : "  aws: " + calls);
  }

  static Map<String, Long> diff(CallStats before, CallStats after) {
    Map<String, Long> out = new TreeMap<>();
    after.services().forEach((service, actions) -> actions.forEach((action, stats) -> {
      long n = stats.calls() - before.action(service, action).calls();
      if (n > 0) {
        out.put(action, n);
      }
    }));
    return out;
  }

  private static String describe(RuntimeException e) {
    if (e instanceof StatusRuntimeException s) {
      return s.getStatus().getCode() + ": " + s.getStatus().getDescription();
    }
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  private int waitReady(ControllerGrpc.ControllerBlockingStub controller, String snapshotId) {
    for (int poll = 1; poll <= 120; poll++) {
      var page = controller.withDeadlineAfter(30, TimeUnit.SECONDS).listSnapshots(
          ListSnapshotsRequest.newBuilder().setSnapshotId(snapshotId).build());
      if (!page.getEntriesList().isEmpty() && page.getEntries(0).getSnapshot().getReadyToUse()) {
        return poll;
      }
      sleep(Duration.ofMillis(500));
    }
    throw new IllegalStateException("snapshot " + snapshotId + " not ready after 60 s");
  }

  private Path dir(String relative) {
    try {
      return Files.createDirectories(workDir.resolve(relative));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes and flushes, as an application quiesces before a snapshot: EBS snapshots hold what reached the disk. */
  private static Path write(Path file) {
    try (var channel = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING)) {
      channel.write(java.nio.ByteBuffer.wrap(PAYLOAD.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
      channel.force(true);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long totalSpace(Path path) {
    try {
      return Files.getFileStore(path).getTotalSpace();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long mib(long bytes) {
    return bytes >> 20;
  }

  private static String truncate(String s, int n) {
    return s.length() <= n ? s : s.substring(0, n - 1) + "…";
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static ManagedChannel channel(CsiEndpoint endpoint) {
    return Grpc.newChannelBuilder("unix://" + endpoint.socketPath(), InsecureChannelCredentials.create()).build();
  }

}
