package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * gp3 volumes through the whole Kubernetes path: WaitForFirstConsumer provisioning in the node's zone, attach by the
 * attach-detach controller and csi-attacher, the kubelet's stage and publish, data that outlives its pod; online
 * expansion through csi-resizer and the kubelet's NodeExpandVolume.
 */
class EbsVolumeTest extends ClusterCase {

  @Test
  void waitForFirstConsumerVolumeIsMadeInTheNodesZoneAndOutlivesItsPod() {
    Steps steps = new Steps("ebs wffc");
    steps.step("PVC created, Pending until a pod uses it (WaitForFirstConsumer)", () -> {
      cluster.createPvc("data", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
      Eventually.await("event WaitForFirstConsumer on the PVC", Duration.ofMinutes(1),
          () -> cluster.eventsOf("PersistentVolumeClaim", "data").stream()
              .anyMatch(e -> "WaitForFirstConsumer".equals(e.getReason())));
      assertThat(cluster.pvc("data").getStatus().getPhase()).isEqualTo("Pending");
      assertThat(cluster.pvc("data").getSpec().getVolumeName()).isNullOrEmpty();
    });
    String node = steps.step("writer pod scheduled to a node", () -> {
      cluster.createPod("writer", "data", "sleep 86400", null);
      Eventually.await("writer scheduled", Duration.ofMinutes(2), () -> cluster.nodeOf("writer") != null);
      return cluster.nodeOf("writer");
    });
    String volumeId = steps.step("CreateVolume with the node's topology: PV bound", () -> {
      PersistentVolume bound = cluster.awaitBound("data");
      Node n = cluster.client.nodes().withName(node).get();
      Map<String, String> required = ClusterFixture.requiredTopology(bound);
      assertThat(required).as("PV node affinity").isNotEmpty();
      required.forEach((key, value) -> assertThat(n.getMetadata().getLabels()).as("node label %s", key)
          .containsEntry(key, value));
      assertThat(bound.getSpec().getCsi().getVolumeHandle()).startsWith("vol-");
      return bound.getSpec().getCsi().getVolumeHandle() + " " + required;
    });
    assertThat(volumeId).startsWith("vol-");
    PersistentVolume pv = cluster.client.persistentVolumes().withName(cluster.pvc("data").getSpec().getVolumeName())
        .get();
    steps.step("VolumeAttachment by the attach-detach controller, attached", () -> {
      VolumeAttachment va = cluster.awaitAttached(pv.getMetadata().getName(), node);
      return va.getStatus().getAttachmentMetadata();
    });
    String token = ClusterFixture.token();
    steps.step("NodeStage/NodePublish: pod ready, writes", () -> {
      cluster.awaitReady("writer");
      cluster.exec("writer", "echo " + token + " > " + ClusterFixture.MOUNT + "/file && sync");
      return cluster.exec("writer", "grep ' " + ClusterFixture.MOUNT + " ' /proc/mounts | cut -d' ' -f1,3");
    });
    steps.step("writer deleted (NodeUnpublish/NodeUnstage)", () -> cluster.deletePod("writer"));
    steps.step("a second pod reads the data", () -> {
      cluster.startSleeper("reader", "data");
      assertThat(cluster.exec("reader", "cat " + ClusterFixture.MOUNT + "/file")).isEqualTo(token);
    });
    steps.summary();
  }

  @Test
  void xfsVolumeGrowsOnlineWhileMounted() {
    expandOnline("xfs");
  }

  @Test
  void ext4VolumeGrowsOnlineWhileMounted() {
    assumeTrue(!cluster.local() || hasSysResource(), "online resize2fs of a mounted ext4 needs CAP_SYS_RESOURCE,"
        + " which this machine's root lacks (xfs online growth and ext4 offline growth are tested for real)");
    expandOnline("ext4");
  }

  private void expandOnline(String fsType) {
    Steps steps = new Steps("ebs expand " + fsType);
    String sc = cluster.storageClass(fsType, Map.of("type", "gp3", "csi.storage.k8s.io/fstype", fsType),
        "WaitForFirstConsumer");
    steps.step("pod with a 1Gi " + fsType + " volume ready", () -> {
      cluster.createPvc("data", sc, "1Gi", "ReadWriteOnce");
      cluster.startSleeper("app", "data");
      assertThat(cluster.exec("app", "grep ' " + ClusterFixture.MOUNT + " ' /proc/mounts")).contains(" " + fsType + " ");
    });
    long before = steps.step("df before", () -> sizeKib("app"));
    assertThat(before).isLessThan(1024 * 1024);
    Set<String> conditionsSeen = ConcurrentHashMap.newKeySet();
    try (AutoCloseable watch = watchConditions("data", conditionsSeen)) {
      steps.step("PVC edited to 2Gi: status.allocatedResources 2Gi", () -> {
        cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).withName("data").edit(pvc -> {
          pvc.getSpec().getResources().getRequests().put("storage", new Quantity("2Gi"));
          return pvc;
        });
        Eventually.await("allocatedResources 2Gi", Duration.ofMinutes(2), () -> new Quantity("2Gi").equals(
            cluster.pvc("data").getStatus().getAllocatedResources() == null ? null
                : cluster.pvc("data").getStatus().getAllocatedResources().get("storage")));
      });
      // The resizer hands the rest to the node by marking the claim (condition FileSystemResizePending and
      // status.allocatedResourceStatuses NodeResizePending) and saying so in the FileSystemResizeRequired event; the
      // claim is polled every 100 ms, so the pending state is seen before the kubelet's NodeExpandVolume clears it.
      steps.step("ControllerExpandVolume done, node resize pending (FileSystemResizeRequired)", () -> {
        Eventually.await("event FileSystemResizeRequired", Duration.ofMinutes(3), () -> cluster.eventsOf(
            "PersistentVolumeClaim", "data").stream().anyMatch(e -> "FileSystemResizeRequired".equals(e.getReason())));
        Eventually.await("FileSystemResizePending (or NodeResizePending) seen", Duration.ofSeconds(30),
            () -> conditionsSeen.contains("FileSystemResizePending")
                || conditionsSeen.contains("allocatedResourceStatuses=NodeResizePending"));
        return "seen: " + conditionsSeen.stream().sorted().toList();
      });
      steps.step("kubelet NodeExpandVolume: FileSystemResizeSuccessful event", () -> Eventually.await(
          "event FileSystemResizeSuccessful", Duration.ofMinutes(3), () -> cluster.events().stream()
              .anyMatch(e -> "FileSystemResizeSuccessful".equals(e.getReason()))));
    } catch (Exception e) {
      throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
    System.out.println("[ebs expand " + fsType + "] claim states seen while growing: " + conditionsSeen.stream()
        .sorted().toList());
    long after = steps.step("df in the running pod shows the new size", () -> {
      Eventually.await("df grown", Duration.ofMinutes(2), () -> sizeKib("app") > 3 * 512 * 1024);
      return sizeKib("app");
    });
    assertThat(after).isGreaterThan(before);
    steps.step("PVC capacity 2Gi, no resize condition left", () -> Eventually.await("capacity 2Gi",
        Duration.ofMinutes(2), () -> {
          PersistentVolumeClaim pvc = cluster.pvc("data");
          return new Quantity("2Gi").equals(pvc.getStatus().getCapacity().get("storage"))
              && pvc.getStatus().getConditions().stream().noneMatch(c -> c.getType().contains("Resiz"));
        }));
    steps.step("pod not restarted, still writable", () -> {
      assertThat(cluster.restarts("app")).isZero();
      assertThat(cluster.exec("app", "echo still-writable > " + ClusterFixture.MOUNT + "/after && cat "
          + ClusterFixture.MOUNT + "/after")).isEqualTo("still-writable");
    });
    steps.summary();
  }

  /**
   * Records every condition type and allocated-resource status of the claim, polled every 100 ms on a virtual
   * thread until closed (the node resize may be pending for well under a second).
   */
  private AutoCloseable watchConditions(String pvc, Set<String> seen) {
    var stop = new java.util.concurrent.atomic.AtomicBoolean();
    Thread poller = Thread.ofVirtual().start(() -> {
      while (!stop.get()) {
        try {
          PersistentVolumeClaim p = cluster.pvc(pvc);
          if (p.getStatus() != null && p.getStatus().getConditions() != null) {
            p.getStatus().getConditions().forEach(c -> seen.add(c.getType()));
          }
          if (p.getStatus() != null && p.getStatus().getAllocatedResourceStatuses() != null) {
            String status = p.getStatus().getAllocatedResourceStatuses().get("storage");
            if (status != null) {
              seen.add("allocatedResourceStatuses=" + status);
            }
          }
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          // A failed read is retried on the next round.
        }
      }
    });
    return () -> {
      stop.set(true);
      poller.join(5_000);
    };
  }

  /** The file system size in KiB as {@code df} inside the pod reports it. */
  private long sizeKib(String pod) {
    String df = cluster.exec(pod, "df -k " + ClusterFixture.MOUNT + " | tail -1");
    return Long.parseLong(df.trim().split("\\s+")[1]);
  }

  /** Whether this process (root on the machine that runs the local cluster) has CAP_SYS_RESOURCE (bit 24). */
  static boolean hasSysResource() {
    try {
      List<String> status = Files.readAllLines(Path.of("/proc/self/status"));
      String eff = status.stream().filter(l -> l.startsWith("CapEff:")).findFirst().orElse("CapEff: 0");
      long caps = Long.parseUnsignedLong(eff.substring("CapEff:".length()).trim(), 16);
      return (caps & (1L << 24)) != 0;
    } catch (IOException e) {
      return false;
    }
  }
}
