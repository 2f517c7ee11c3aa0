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
import io.awscsi.launcher.local.LocalAws;
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
 * Resident memory of the driver process (the built distribution, {@code all} mode, loop-device backend) while N
 * volumes are created, attached, staged and published concurrently, and while they stay published. Usage:
 * NodeLoadBenchmark DIST_DIR [volumes]. Prints idle, peak and steady RSS.
 */
public final class NodeLoadBenchmark {

  private NodeLoadBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path dist = Path.of(args.length > 0 ? args[0] : "dist/aws-csi-driver").toAbsolutePath();
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 50;
    Path work = Files.createTempDirectory(Path.of("/tmp"), "nodeload-");
    Path socket = work.resolve("csi.sock");
    // One node holds all volumes: lift the emulated per-instance attachment limit above N.
    try (LocalAws aws = LocalAws.start(RealismProfile.instant().withAttachmentLimit(n + 10))) {
      ProcessBuilder pb = new ProcessBuilder(dist.resolve("bin/aws-csi-driver").toString(), "--driver", "ebs",
          "--mode", "all", "--endpoint", "unix://" + socket, "--device-backend", "loop",
          "--loop-state-dir", work.resolve("loop").toString(), "--log-level", "warn")
          .redirectErrorStream(true).redirectOutput(work.resolve("driver.log").toFile());
      pb.environment().putAll(aws.driverEnvironment());
      Process driver = pb.start();
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
      List<String> volumes = java.util.Collections.synchronizedList(new ArrayList<>());
      ControllerGrpc.ControllerBlockingStub controller = null;
      NodeGrpc.NodeBlockingStub node = null;
      try {
        while (!Files.exists(socket)) {
          Thread.sleep(20);
        }
        channel = Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create()).build();
        while (!probe(channel)) {
          Thread.sleep(20);
        }
        Thread.sleep(2000);
        long idle = rssKiB(driver.pid());
        controller = ControllerGrpc.newBlockingStub(channel);
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
        System.out.printf("driver RSS: idle %d MiB, peak during the load %d MiB, steady with %d published %d MiB%n",
            idle / 1024, peak.get() / 1024, n, steady / 1024);
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
        if (channel != null) {
          channel.shutdownNow();
        }
        driver.destroy();
        driver.waitFor(30, TimeUnit.SECONDS);
        sampler.interrupt();
      }
    }
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
