package io.awscsi.e2e.bench;

import csi.v1.ControllerGrpc;
import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.ControllerUnpublishVolumeRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.IdentityGrpc;
import csi.v1.NodeGrpc;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.NodeUnpublishVolumeRequest;
import csi.v1.NodeUnstageVolumeRequest;
import csi.v1.ProbeRequest;
import csi.v1.VolumeCapability;
import io.awscsi.local.LocalAws;
import io.awscsi.realism.RealismProfile;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Resident memory of the node plugin process (the built distribution, {@code node} mode, loop-device backend) while N
 * volumes are created and attached (by a separate controller process, as on a cluster), staged and published
 * concurrently, and while they stay published. Usage: NodeLoadBenchmark DIST_DIR [volumes]. Prints idle, peak and
 * steady RSS of the node process.
 */
public final class NodeLoadBenchmark {

  private NodeLoadBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path dist = Path.of(args.length > 0 ? args[0] : "dist/aws-csi-driver").toAbsolutePath();
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 50;
    Path work = Files.createTempDirectory(Path.of("/tmp"), "nodeload-");
    Path controllerSocket = work.resolve("controller.sock");
    Path socket = work.resolve("node.sock");
    // One node holds all volumes: lift the emulated per-instance attachment limit above N.
    try (LocalAws aws = LocalAws.start(RealismProfile.instant().withAttachmentLimit(n + 10))) {
      // Two processes as on a cluster: the controller Deployment's and the node DaemonSet's; they share the loop
      // backend's state directory the way EC2 and the instance share an attachment.
      Process controllerProcess = start(dist, aws, work, "controller", controllerSocket);
      Process driver = start(dist, aws, work, "node", socket);
      AtomicLong peak = new AtomicLong();
      var sampler = Thread.ofVirtual().start(() -> {
        while (driver.isAlive()) {
          peak.accumulateAndGet(rssKiB(driver.pid()), Math::max);
          try {
            Thread.sleep(20);
          } catch (InterruptedException e) {
            return;
          }
        }
      });
      String nodeId = aws.instanceId();
      ManagedChannel channel = null;
      ManagedChannel controllerChannel = null;
      List<String> volumes = java.util.Collections.synchronizedList(new ArrayList<>());
      ControllerGrpc.ControllerBlockingStub controller = null;
      NodeGrpc.NodeBlockingStub node = null;
      try {
        channel = connect(socket);
        controllerChannel = connect(controllerSocket);
        Thread.sleep(3000);
        long idle = rssKiB(driver.pid());
        controller = ControllerGrpc.newBlockingStub(controllerChannel);
        node = NodeGrpc.newBlockingStub(channel);
        var ctl = controller;
        var nd = node;
        VolumeCapability ext4 = VolumeCapability.newBuilder().setMount(VolumeCapability.MountVolume.newBuilder()
            .setFsType("ext4")).setAccessMode(VolumeCapability.AccessMode.newBuilder()
            .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER)).build();
        long start = System.nanoTime();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
          List<Future<String>> created = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            int k = i;
            created.add(pool.submit(() -> {
              String id = ctl.withDeadlineAfter(5, TimeUnit.MINUTES).createVolume(CreateVolumeRequest
                  .newBuilder().setName("load-" + k).addVolumeCapabilities(ext4)
                  .setCapacityRange(csi.v1.CapacityRange.newBuilder().setRequiredBytes(1L << 30)).build())
                  .getVolume().getVolumeId();
              volumes.add(id);
              var ctx = ctl.withDeadlineAfter(5, TimeUnit.MINUTES).controllerPublishVolume(
                  ControllerPublishVolumeRequest.newBuilder().setVolumeId(id).setNodeId(nodeId)
                      .setVolumeCapability(ext4).build()).getPublishContextMap();
              Path staging = Files.createDirectories(work.resolve("staging/" + id));
              nd.withDeadlineAfter(5, TimeUnit.MINUTES).nodeStageVolume(NodeStageVolumeRequest.newBuilder()
                  .setVolumeId(id).putAllPublishContext(ctx).setStagingTargetPath(staging.toString())
                  .setVolumeCapability(ext4).build());
              nd.withDeadlineAfter(5, TimeUnit.MINUTES).nodePublishVolume(NodePublishVolumeRequest.newBuilder()
                  .setVolumeId(id).putAllPublishContext(ctx).setStagingTargetPath(staging.toString())
                  .setTargetPath(work.resolve("pods/" + id).toString()).setVolumeCapability(ext4).build());
              return id;
            }));
          }
          for (Future<String> f : created) {
            f.get();
          }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Thread.sleep(3000);
        long steady = rssKiB(driver.pid());
        System.out.printf("%d volumes created, attached, staged (mkfs.ext4) and published concurrently in %.1f s%n",
            n, seconds);
        System.out.printf("node process RSS: idle %d MiB, peak during the load %d MiB, steady with %d published %d MiB%n",
            idle / 1024, peak.get() / 1024, n, steady / 1024);
        System.out.printf("controller process RSS (for reference): %d MiB%n", rssKiB(controllerProcess.pid()) / 1024);
      } finally {
        // Undo whatever was made, also after a failure, so no mount, loop device or volume is left behind.
        var nd2 = node;
        var ctl2 = controller;
        if (nd2 != null) {
          try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (String id : volumes) {
              pool.submit(() -> {
                nd2.nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(id)
                      .setTargetPath(work.resolve("pods/" + id).toString()).build());
                nd2.nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder().setVolumeId(id)
                      .setStagingTargetPath(work.resolve("staging/" + id).toString()).build());
                ctl2.controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder().setVolumeId(id)
                      .setNodeId(nodeId).build());
                ctl2.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
                return null;
              });
            }
          }
        }
        for (ManagedChannel c : new ManagedChannel[] {channel, controllerChannel}) {
          if (c != null) {
            c.shutdownNow();
          }
        }
        for (Process p : new Process[] {driver, controllerProcess}) {
          p.destroy();
          p.waitFor(30, TimeUnit.SECONDS);
        }
        sampler.interrupt();
        // The serving driver keeps its loop devices when it stops (as EC2 keeps attachments): release what is left.
        for (String loop : io.awscsi.e2e.local.LoopDeviceList.backedBy(work)) {
          new ProcessBuilder("losetup", "-d", "/dev/" + loop).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
        removeUnlessMounted(work);
      }
    }
  }

  /** Deletes the work directory, unless something under it is still mounted (then it is left for inspection). */
  private static void removeUnlessMounted(Path work) throws java.io.IOException {
    if (Files.readString(Path.of("/proc/self/mountinfo")).contains(work.toString())) {
      System.out.println("left " + work + ": something under it is still mounted");
      return;
    }
    try (var paths = Files.walk(work)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static Process start(Path dist, LocalAws aws, Path work, String mode, Path socket) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(dist.resolve("bin/aws-csi-driver").toString(), "emulated", "--driver", "ebs",
        "--mode", mode, "--endpoint", "unix://" + socket, "--device-backend", "loop",
        "--loop-state-dir", work.resolve("loop").toString(), "--log-level", "warn",
        // Its staging and target paths lie below the work directory, which plays the kubelet's.
        "--kubelet-dir", work.toString())
        .redirectErrorStream(true).redirectOutput(work.resolve(mode + ".log").toFile());
    pb.environment().putAll(aws.driverEnvironment());
    pb.environment().put("DISABLE_TAINT_WATCHER", "true");
    return pb.start();
  }

  private static ManagedChannel connect(Path socket) throws InterruptedException {
    while (!Files.exists(socket)) {
      Thread.sleep(20);
    }
    ManagedChannel channel = Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create()).build();
    while (!probe(channel)) {
      Thread.sleep(20);
    }
    return channel;
  }

  private static boolean probe(ManagedChannel channel) {
    try {
      return IdentityGrpc.newBlockingStub(channel).withDeadlineAfter(1, TimeUnit.SECONDS)
          .probe(ProbeRequest.getDefaultInstance()).getReady().getValue();
    } catch (io.grpc.StatusRuntimeException e) {
      return false;
    }
  }

  private static long rssKiB(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("\\D", ""));
        }
      }
    } catch (Exception gone) {
      return 0;
    }
    return 0;
  }
}
