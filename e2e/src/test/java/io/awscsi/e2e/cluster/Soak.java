package io.awscsi.e2e.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.storage.VolumeAttributesClassBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.efs.EfsClient;

/**
 * A soak under faults (issue 29) on the local cluster with both drivers as pods: a workload keeps {@link Config#volumes}
 * claims in motion (created in both binding modes and several classes, EBS and EFS; pods that write data with a
 * checksum and verify what they read; pods moved (deleted and started again, on another node where there are
 * several), online and offline expansion, a VolumeAttributesClass change, snapshot and restore, deletion), while a
 * fault injector, at times drawn from a seeded generator (the seed is printed, so a run can be replayed), kills the
 * controller replica holding the provisioner's Lease, a node plugin, restarts the kubelet, the container runtime and
 * the API server, pauses etcd, makes a node's IMDS unreachable (killing its plugin during it, half the time), and makes
 * emulated AWS misbehave (5xx and throttling bursts, attachments held in attaching, the EFS API frozen). At the end,
 * after a bounded convergence, {@link Ledger}: leaks, stuck objects, checksum mismatches, mounts (on every node) and
 * loop devices left, with the operations done, the faults by kind and the time from each fault to the soak's objects
 * converging.
 *
 * <p>One thread runs the workload, one the faults; both draw from generators seeded from {@link Config#seed}. The
 * workload's waits are bounded: an operation that does not finish within its bound while a fault is on is counted as
 * "retried" (not a failure: a user's controller would retry too), and only what is still wrong after the convergence
 * counts in the ledger.
 */
final class Soak {

  /**
   * @param length how long the workload and the faults run
   * @param seed the generators' seed
   * @param volumes how many claims the workload keeps
   * @param operationPause the pause between two workload operations
   * @param faultPause the mean pause between two faults (drawn uniformly from half to one and a half of it)
   * @param converge the bound on convergence, after each fault and at the end
   */
  record Config(Duration length, long seed, int volumes, Duration operationPause, Duration faultPause,
                Duration converge) {

    /** From the environment (SOAK_MINUTES, SOAK_SEED, SOAK_VOLUMES, SOAK_OP_SECONDS, SOAK_FAULT_SECONDS). */
    static Config fromEnvironment(Duration length, long seed, int volumes) {
      Map<String, String> env = System.getenv();
      return new Config(env.containsKey("SOAK_MINUTES") ? Duration.ofMinutes(Long.parseLong(env.get("SOAK_MINUTES")))
          : length, env.containsKey("SOAK_SEED") ? Long.parseLong(env.get("SOAK_SEED")) : seed,
          env.containsKey("SOAK_VOLUMES") ? Integer.parseInt(env.get("SOAK_VOLUMES")) : volumes,
          Duration.ofSeconds(Long.parseLong(env.getOrDefault("SOAK_OP_SECONDS", "2"))),
          Duration.ofSeconds(Long.parseLong(env.getOrDefault("SOAK_FAULT_SECONDS", "30"))), Duration.ofMinutes(3));
    }
  }

  /** What the soak leaves to judge it by. */
  record Ledger(long seed, Duration ran, Map<String, Integer> operations, Map<String, Integer> faults,
                List<Duration> convergence, int unconverged, List<String> leaks, List<String> stuck,
                int checksumMismatches, List<String> leftOnNode, List<String> neededAHuman) {

    boolean clean() {
      return leaks.isEmpty() && stuck.isEmpty() && checksumMismatches == 0 && leftOnNode.isEmpty() && unconverged == 0
          && neededAHuman.isEmpty();
    }

    String table() {
      StringBuilder t = new StringBuilder();
      t.append("| soak (seed ").append(seed).append(", ").append(ran.toMinutes()).append(" min) | |\n|---|---|\n");
      t.append("| operations done | ").append(operations.values().stream().mapToInt(i -> i).sum()).append(" ")
          .append(operations).append(" |\n");
      t.append("| faults injected | ").append(faults.entrySet().stream().filter(e -> !e.getKey().startsWith("("))
              .mapToInt(Map.Entry::getValue).sum()).append(" ")
          .append(faults).append(" |\n");
      t.append("| fault to converged (p50 / p99 / max) | ").append(secs(percentile(50))).append(" / ")
          .append(secs(percentile(99))).append(" / ").append(secs(percentile(100))).append(" (")
          .append(convergence.size()).append(" faults; not converged within the bound: ").append(unconverged)
          .append(") |\n");
      t.append("| leaked EC2 volumes, snapshots, EFS access points | ").append(leaks.size()).append(leaks.isEmpty()
          ? "" : " " + leaks).append(" |\n");
      t.append("| PVCs, VolumeAttachments, pods, snapshots stuck | ").append(stuck.size()).append(stuck.isEmpty()
          ? "" : " " + stuck).append(" |\n");
      t.append("| checksum mismatches | ").append(checksumMismatches).append(" |\n");
      t.append("| mounts and loop devices left on any node | ").append(leftOnNode.size()).append(leftOnNode.isEmpty()
          ? "" : " " + leftOnNode).append(" |\n");
      t.append("| needed a human | ").append(neededAHuman.isEmpty() ? "nothing" : neededAHuman).append(" |\n");
      return t.toString();
    }

    private Duration percentile(int p) {
      if (convergence.isEmpty()) {
        return Duration.ZERO;
      }
      List<Duration> sorted = new ArrayList<>(convergence);
      Collections.sort(sorted);
      int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
      return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }

    private static String secs(Duration d) {
      return String.format("%.1f s", d.toMillis() / 1000.0);
    }
  }

  private static final String EBS = "ebs.csi.aws.com";
  private static final String PROVISIONER_LEASE = "ebs-csi-aws-com";
  private static final Duration OPERATION_BOUND = Duration.ofMinutes(3);
  /** The first pod of a claim: writes 1 MiB of random data and its checksum, then keeps the volume mounted. */
  private static final String WRITER = "head -c 1048576 /dev/urandom > /data/blob"
      + " && (cd /data && sha256sum blob > blob.sum.tmp && mv blob.sum.tmp blob.sum) && sync; sleep 86400";
  /** Every later pod of the claim (and of a restore) only reads: lost data must show, never be written anew. */
  private static final String READER = "sleep 86400";
  private static final String VERIFY = "cd /data && test -f blob.sum && sha256sum -c blob.sum >/dev/null && echo OK"
      + " || echo MISMATCH";

  private final ClusterFixture cluster;
  private final Config config;
  private final LocalCluster local;
  private final Random work;
  private final Random chaos;
  private final Map<String, Integer> operations = new TreeMap<>();
  private final Map<String, Integer> faults = new TreeMap<>();
  private final List<Duration> convergence = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger unconverged = new AtomicInteger();
  private final AtomicInteger mismatches = new AtomicInteger();
  private final List<String> neededAHuman = Collections.synchronizedList(new ArrayList<>());
  private final List<String> classes = new ArrayList<>();
  private final Map<String, Boolean> efsClass = new LinkedHashMap<>();
  private final Set<String> verified = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean running = new AtomicBoolean(true);
  /** What emulated AWS held before the soak (the instance's root volume, other cases' objects): not the soak's. */
  private final Set<String> before = new HashSet<>();
  private String vac;
  private int serial;

  Soak(ClusterFixture cluster, Config config) {
    this.cluster = cluster;
    this.config = config;
    this.local = cluster.localCluster();
    this.work = new Random(config.seed());
    this.chaos = new Random(config.seed() * 31 + 29);
  }

  Ledger run() {
    System.out.println("[soak] seed " + config.seed() + " (SOAK_SEED=" + config.seed() + " replays it), "
        + config.length().toMinutes() + " min, " + config.volumes() + " volumes, an operation every "
        + config.operationPause().toSeconds() + " s, a fault every ~" + config.faultPause().toSeconds() + " s");
    setUp();
    before.addAll(leaks(Set.of(), Set.of()));
    Instant start = Instant.now();
    Instant end = start.plus(config.length());
    Thread injector = Thread.ofVirtual().name("soak-faults").start(() -> faults(end));
    List<String> live = new ArrayList<>();
    while (Instant.now().isBefore(end)) {
      try {
        step(live);
      } catch (RuntimeException | AssertionError e) {
        count(operations, "retried");
        System.out.println("[soak] operation did not finish in bound (retried later): " + e.getMessage());
      }
      Eventually.sleep(config.operationPause());
    }
    running.set(false);
    try {
      injector.join(Duration.ofMinutes(6));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    local.clearFaults();
    Duration ran = Duration.between(start, Instant.now());
    return ledger(ran, live);
  }

  // ---------------------------------------------------------------- the workload

  private void setUp() {
    classes.add(cluster.storageClass("soak-wffc", Map.of("type", "gp3"), "WaitForFirstConsumer"));
    // xfs: the claims that grow online (an ext4 grows online only with CAP_SYS_RESOURCE, which this machine's node
    // lacks, see docs/testing.md; ext4 claims grow offline).
    classes.add(cluster.storageClass("soak-now", Map.of("type", "gp3", "csi.storage.k8s.io/fstype", "xfs"),
        "Immediate"));
    classes.add(cluster.storageClass("soak-gp2", Map.of("type", "gp2"), "WaitForFirstConsumer"));
    classes.forEach(c -> efsClass.put(c, false));
    Optional<String> fs = ClusterFixture.target().fileSystemId();
    if (fs.isPresent()) {
      String efs = cluster.storageClass("soak-efs", Map.of("provisioningMode", "efs-ap", "fileSystemId", fs.get(),
          "directoryPerms", "700"), "Immediate");
      classes.add(efs);
      efsClass.put(efs, true);
    }
    vac = cluster.namespace + "-soak-fast";
    cluster.createClusterScoped(new VolumeAttributesClassBuilder().withNewMetadata().withName(vac).endMetadata()
        .withDriverName(EBS).withParameters(Map.of("iops", "4000", "throughput", "250")).build());
  }

  private void step(List<String> live) {
    if (live.size() < config.volumes()) {
      String claim = "v" + (++serial);
      String sc = classes.get(work.nextInt(classes.size()));
      cluster.createPvc(claim, sc, "1Gi", efsClass.get(sc) ? "ReadWriteMany" : "ReadWriteOnce");
      live.add(claim);
      startWriter(claim);
      verify(claim, pod(claim));
      count(operations, "create+write " + (efsClass.get(sc) ? "efs" : "ebs"));
      return;
    }
    String claim = live.get(work.nextInt(live.size()));
    String sc = cluster.pvc(claim).getSpec().getStorageClassName();
    boolean efs = efsClass.getOrDefault(sc, false);
    int op = work.nextInt(efs ? 3 : 7);
    if (op == 5 && !sc.equals(classes.getFirst()) && !sc.equals(classes.get(1))) {
      op = 0; // the class raises gp3's iops and throughput: a gp2 volume has neither (refused, rightly)
    }
    if (op == 3 && !sc.equals(classes.get(1))) {
      op = 4; // online growth on the xfs class only
    }
    switch (op) {
      case 0 -> {
        verify(claim, pod(claim));
        count(operations, "verify");
      }
      case 1 -> {
        // A move: the pod goes and a new one mounts the volume. On several nodes the new pod is required on another
        // one (for EBS, another of the volume's zone: detach from one instance, attach to the other); on one node,
        // or where the zone has no other node, the same node, through a full unpublish, unstage, detach and attach
        // again when the old one is gone.
        Pod old = cluster.client.pods().inNamespace(cluster.namespace).withName(pod(claim)).get();
        String from = old == null ? null : old.getSpec().getNodeName();
        List<String> others = otherNodes(from, efs);
        String to = others.isEmpty() ? null : others.get(work.nextInt(others.size()));
        cluster.deletePod(pod(claim));
        startWriter(claim, to);
        verify(claim, pod(claim));
        if (to != null) {
          String ran = cluster.client.pods().inNamespace(cluster.namespace).withName(pod(claim)).get().getSpec()
              .getNodeName();
          if (!to.equals(ran)) {
            throw new AssertionError("moved pod of " + claim + " runs on " + ran + ", not on " + to);
          }
        }
        count(operations, to == null ? "move" : "move to another node");
      }
      case 2 -> {
        live.remove(claim);
        deleteClaim(claim);
        count(operations, "delete");
      }
      case 3 -> {
        expand(claim);
        verify(claim, pod(claim));
        count(operations, "expand online");
      }
      case 4 -> {
        cluster.deletePod(pod(claim));
        expand(claim);
        startWriter(claim);
        verify(claim, pod(claim));
        count(operations, "expand offline");
      }
      case 5 -> {
        modify(claim);
        count(operations, "modify (VolumeAttributesClass)");
      }
      default -> {
        snapshotAndRestore(claim);
        count(operations, "snapshot+restore");
      }
    }
  }

  private String pod(String claim) {
    return claim + "-" + generation.getOrDefault(claim, 0);
  }

  private final Map<String, Integer> generation = new ConcurrentHashMap<>();

  private void startWriter(String claim) {
    startWriter(claim, null);
  }

  /** The claim's next pod, on {@code node} when not null (required node affinity). */
  private void startWriter(String claim, String node) {
    int g = generation.merge(claim, 1, Integer::sum);
    boolean writes = g == 1 && !claim.contains("-snap");
    cluster.client.pods().inNamespace(cluster.namespace).resource(new PodBuilder().withNewMetadata()
        .withName(pod(claim)).addToLabels("soak-claim", claim).endMetadata()
        .withSpec(ClusterFixture.podSpec(claim, writes ? WRITER : READER, node)).build()).create();
    cluster.awaitReady(pod(claim), OPERATION_BOUND);
  }

  /**
   * The schedulable nodes other than {@code from} a volume can move to: any for EFS, those of {@code from}'s zone for
   * EBS (a volume stays in its zone). None on one node, or when the old pod's node is not known.
   */
  private List<String> otherNodes(String from, boolean efs) {
    if (from == null || local.nodeCount() < 2) {
      return List.of();
    }
    List<Node> nodes = cluster.schedulableNodes();
    String zone = nodes.stream().filter(n -> from.equals(n.getMetadata().getName())).findFirst()
        .map(ClusterFixture::zoneOf).orElse(null);
    return nodes.stream().filter(n -> !from.equals(n.getMetadata().getName()))
        .filter(n -> efs || zone != null && zone.equals(ClusterFixture.zoneOf(n)))
        .map(n -> n.getMetadata().getName()).sorted().toList();
  }

  /** Reads the data back against its checksum; a claim whose data was once verified must verify again. */
  private void verify(String claim, String pod) {
    String out = "";
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    while (Instant.now().isBefore(deadline)) {
      out = cluster.exec(pod, VERIFY);
      if (out.contains("OK")) {
        verified.add(claim);
        return;
      }
      if (verified.contains(claim)) {
        break;
      }
      Eventually.sleep(Duration.ofSeconds(2)); // the first write may still be running
    }
    mismatches.incrementAndGet();
    System.out.println("[soak] CHECKSUM MISMATCH on " + claim + " (pod " + pod + "): " + out);
  }

  private void expand(String claim) {
    PersistentVolumeClaim pvc = cluster.pvc(claim);
    long gib = Quantity.getAmountInBytes(pvc.getSpec().getResources().getRequests().get("storage"))
        .longValue() >> 30;
    String size = (gib + 1) + "Gi";
    cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).withName(claim).patch(
        PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"" + size
            + "\"}}}}");
    Eventually.await("PV of " + claim + " at " + size, OPERATION_BOUND, () -> {
      PersistentVolume pv = cluster.client.persistentVolumes().withName(cluster.pvc(claim).getSpec().getVolumeName())
          .get();
      return Quantity.getAmountInBytes(pv.getSpec().getCapacity().get("storage"))
          .compareTo(Quantity.getAmountInBytes(new Quantity(size))) >= 0;
    });
  }

  private void modify(String claim) {
    cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).withName(claim).patch(
        PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"volumeAttributesClassName\":\"" + vac + "\"}}");
    Eventually.await("claim " + claim + " on VolumeAttributesClass " + vac, OPERATION_BOUND,
        () -> vac.equals(cluster.pvc(claim).getStatus().getCurrentVolumeAttributesClassName()));
  }

  private void snapshotAndRestore(String claim) {
    String snap = claim + "-snap" + generation.get(claim);
    cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT).inNamespace(cluster.namespace).resource(
        new GenericKubernetesResourceBuilder().withApiVersion("snapshot.storage.k8s.io/v1").withKind("VolumeSnapshot")
            .withNewMetadata().withName(snap).endMetadata().addToAdditionalProperties("spec", Map.of(
                "volumeSnapshotClassName", ClusterFixture.SNAPSHOT_CLASS, "source", Map.of(
                    "persistentVolumeClaimName", claim))).build()).create();
    try {
      Eventually.await("VolumeSnapshot " + snap + " readyToUse", OPERATION_BOUND, () -> {
        GenericKubernetesResource s = cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT)
            .inNamespace(cluster.namespace).withName(snap).get();
        return s.getAdditionalProperties().get("status") instanceof Map<?, ?> st
            && Boolean.TRUE.equals(st.get("readyToUse"));
      });
      String copy = snap + "-copy";
      PersistentVolumeClaim source = cluster.pvc(claim);
      cluster.createPvc(new PersistentVolumeClaimBuilder().withNewMetadata().withName(copy).endMetadata()
          .withNewSpec().withStorageClassName(source.getSpec().getStorageClassName()).withAccessModes("ReadWriteOnce")
          .withNewResources().addToRequests("storage", source.getSpec().getResources().getRequests().get("storage"))
          .endResources().withNewDataSource().withApiGroup("snapshot.storage.k8s.io").withKind("VolumeSnapshot")
          .withName(snap).endDataSource().endSpec().build());
      verified.add(copy); // a restore must hold the source's data and checksum
      startWriter(copy);
      verify(copy, pod(copy));
      deleteClaim(copy);
    } finally {
      cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT).inNamespace(cluster.namespace)
          .withName(snap).delete();
    }
  }

  private void deleteClaim(String claim) {
    cluster.client.pods().inNamespace(cluster.namespace).withLabel("soak-claim", claim).delete();
    cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).withName(claim).delete();
    Eventually.await("claim " + claim + " gone", OPERATION_BOUND,
        () -> cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).withName(claim).get() == null);
  }

  // ---------------------------------------------------------------- the faults

  /** The kinds of fault, drawn uniformly. */
  private static final List<String> KINDS = List.of("kill lease holder", "kill node plugin", "restart kubelet",
      "restart containerd", "restart kube-apiserver", "pause etcd", "EC2 5xx burst", "EC2 throttling burst",
      "attach held in attaching", "EFS 5xx burst", "EFS API frozen", "IMDS outage");

  private void faults(Instant end) {
    while (running.get()) {
      long mean = config.faultPause().toMillis();
      // The pause ends early when the workload stops, so the end does not wait out a pause with no fault after it.
      Instant wake = Instant.now().plusMillis(mean / 2 + (long) (chaos.nextDouble() * mean));
      while (running.get() && Instant.now().isBefore(wake)) {
        Eventually.sleep(Duration.ofMillis(
            Math.max(1, Math.min(1000, Duration.between(Instant.now(), wake).toMillis()))));
      }
      if (!running.get() || Instant.now().isAfter(end)) {
        return;
      }
      String kind = KINDS.get(chaos.nextInt(KINDS.size()));
      Instant at = Instant.now();
      try {
        inject(kind);
        synchronized (faults) {
          count(faults, kind);
        }
      } catch (RuntimeException | AssertionError e) {
        System.out.println("[soak] fault " + kind + " could not be injected: " + e.getMessage());
        continue;
      }
      try {
        Eventually.await("soak converged after " + kind, config.converge(), this::converged);
        convergence.add(Duration.between(at, Instant.now()));
        System.out.println("[soak] fault " + kind + " at " + at + ": converged in "
            + Duration.between(at, Instant.now()).toMillis() + " ms");
      } catch (AssertionError e) {
        unconverged.incrementAndGet();
        neededAHuman.add(kind + " at " + at + ": " + e.getMessage());
        System.out.println("[soak] fault " + kind + " at " + at + ": NOT converged within " + config.converge());
      }
    }
  }

  private void inject(String kind) {
    switch (kind) {
      case "kill lease holder" -> {
        Lease lease = cluster.client.resources(Lease.class).inNamespace(ClusterFixture.DRIVER_NAMESPACE)
            .withName(PROVISIONER_LEASE).get();
        String holder = lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
        if (holder == null || holder.isEmpty()) {
          throw new IllegalStateException("no holder of Lease " + PROVISIONER_LEASE);
        }
        cluster.driver().killControllerReplica(holder);
      }
      case "kill node plugin" -> {
        String plugin = chaos.nextBoolean() ? DriverDeployment.NODE_PLUGIN : DriverDeployment.EFS_NODE_PLUGIN;
        cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE).withLabel("app", plugin).list().getItems()
            .forEach(p -> cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE).resource(p)
                .withGracePeriod(0).delete());
      }
      case "restart kubelet" -> local.harness("restart", "kubelet");
      case "restart containerd" -> local.harness("restart", "containerd");
      case "restart kube-apiserver" -> local.harness("restart", "kube-apiserver");
      case "pause etcd" -> local.harness("pause", "etcd", String.valueOf(2 + chaos.nextInt(6)));
      case "EC2 5xx burst" -> burst("ec2", chaos.nextBoolean() ? "AttachVolume" : "CreateVolume", 500,
          "InternalError", "An internal error has occurred (soak fault)");
      case "EC2 throttling burst" -> burst("ec2", List.of("CreateVolume", "AttachVolume", "DetachVolume",
          "DeleteVolume", "DescribeVolumes", "CreateSnapshot", "ModifyVolume").get(chaos.nextInt(7)), 503,
          "RequestLimitExceeded", "Request limit exceeded. (soak fault)");
      case "EFS 5xx burst" -> burst("efs", chaos.nextBoolean() ? "CreateAccessPoint" : "DeleteAccessPoint", 500,
          "InternalServerError", "Internal server error (soak fault)");
      case "attach held in attaching" -> {
        List<String> ids = cluster.client.persistentVolumes().list().getItems().stream()
            .filter(pv -> pv.getSpec().getCsi() != null && EBS.equals(pv.getSpec().getCsi().getDriver()))
            .map(pv -> pv.getSpec().getCsi().getVolumeHandle()).toList();
        if (ids.isEmpty()) {
          throw new IllegalStateException("no EBS volume to hold");
        }
        String id = ids.get(chaos.nextInt(ids.size()));
        local.holdAttaching(id);
        Eventually.sleep(Duration.ofSeconds(10 + chaos.nextInt(20)));
        local.releaseAttaching(id);
      }
      case "EFS API frozen" -> {
        // Every EFS call, or one action's, held unanswered for a while, then answered as usual: calls the driver
        // gave up on still take effect late (CreateAccessPoint must not leak for it).
        int seconds = 5 + chaos.nextInt(20);
        local.stall("efs", List.of("*", "*", "CreateAccessPoint", "DeleteAccessPoint").get(chaos.nextInt(4)),
            seconds);
        Eventually.sleep(Duration.ofSeconds(seconds));
      }
      case "IMDS outage" -> {
        // A node's IMDS unreachable for a while; half the time that node's plugin is killed during it and must come
        // up again (from the Kubernetes Node's metadata, or from IMDS once it is back).
        List<String> nodes = local.nodeNames();
        int node = 1 + chaos.nextInt(nodes.size());
        int seconds = 5 + chaos.nextInt(20);
        boolean killPlugin = chaos.nextBoolean();
        String plugin = chaos.nextBoolean() ? DriverDeployment.NODE_PLUGIN : DriverDeployment.EFS_NODE_PLUGIN;
        Thread outage = Thread.ofVirtual().name("soak-imds-outage").start(() -> {
          try {
            System.out.println("[soak] " + local.harness("pause", "imds", String.valueOf(node),
                String.valueOf(seconds)).trim());
          } catch (RuntimeException e) {
            System.out.println("[soak] IMDS outage of node " + node + " failed: " + e.getMessage());
          }
        });
        if (killPlugin) {
          Eventually.sleep(Duration.ofSeconds(2));
          cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE).withLabel("app", plugin).list()
              .getItems().stream().filter(p -> nodes.get(node - 1).equals(p.getSpec().getNodeName()))
              .forEach(p -> cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE).resource(p)
                  .withGracePeriod(0).delete());
          count(faults, "(" + plugin + " killed during the IMDS outage)");
        }
        try {
          outage.join(Duration.ofSeconds(seconds + 60));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      default -> throw new IllegalArgumentException(kind);
    }
  }

  /** A burst: the next few calls of the action answered with the error, then the fault is used up. */
  private void burst(String service, String action, int status, String code, String message) {
    int times = 3 + chaos.nextInt(8);
    local.injectFault(service, action, Map.of(), status, code, message, times);
  }

  /**
   * Converged: the node Ready, the Lease held, every node plugin and controller pod Ready, and every pod of the soak
   * that exists Ready (or going), every claim of the soak Bound unless it waits for its first consumer.
   */
  private boolean converged() {
    // The supervisor of a real node (systemd, static pods) restarts a control-plane process that exited; here the
    // harness does, and each time is counted: it is what a cluster without one would need a human for.
    String revived = local.harness("revive").trim();
    if (!revived.isEmpty()) {
      revived.lines().forEach(l -> count(faults, "(" + l + " after it exited)"));
    }
    boolean nodes = cluster.client.nodes().list().getItems().stream().allMatch(Readiness::isNodeReady);
    Lease lease = cluster.client.resources(Lease.class).inNamespace(ClusterFixture.DRIVER_NAMESPACE)
        .withName(PROVISIONER_LEASE).get();
    boolean leader = lease != null && lease.getSpec().getHolderIdentity() != null
        && !lease.getSpec().getHolderIdentity().isEmpty();
    boolean driver = cluster.client.pods().inNamespace(ClusterFixture.DRIVER_NAMESPACE).list().getItems().stream()
        .filter(p -> p.getMetadata().getName().contains("csi"))
        .allMatch(p -> p.getMetadata().getDeletionTimestamp() != null || Readiness.isPodReady(p));
    boolean pods = cluster.client.pods().inNamespace(cluster.namespace).list().getItems().stream()
        .allMatch(p -> p.getMetadata().getDeletionTimestamp() != null || Readiness.isPodReady(p)
            || Duration.between(Instant.parse(p.getMetadata().getCreationTimestamp()), Instant.now()).toSeconds()
            < 5);
    return nodes && leader && driver && pods;
  }

  // ---------------------------------------------------------------- the ledger

  private Ledger ledger(Duration ran, List<String> live) {
    System.out.println("[soak] workload stopped after " + ran.toSeconds() + " s; converging (at most "
        + config.converge().toMinutes() + " min)");
    try {
      Eventually.await("soak converged at the end", config.converge(), this::converged);
    } catch (AssertionError e) {
      neededAHuman.add("the end: " + e.getMessage());
    }
    for (String claim : live) {
      try {
        if (cluster.client.pods().inNamespace(cluster.namespace).withName(pod(claim)).get() == null) {
          if (!verified.contains(claim)) {
            continue; // its first pod was never made (the API was down): it holds no data to read
          }
          startWriter(claim);
        }
        cluster.awaitReady(pod(claim), OPERATION_BOUND);
        verify(claim, pod(claim));
      } catch (RuntimeException | AssertionError e) {
        neededAHuman.add("final read of " + claim + ": " + e.getMessage());
      }
    }
    // Everything of the soak deleted; what does not go within the bound is stuck.
    cluster.client.pods().inNamespace(cluster.namespace).delete();
    cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT).inNamespace(cluster.namespace).delete();
    cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).delete();
    List<String> stuck = new ArrayList<>();
    try {
      Eventually.await("the soak's objects gone", config.converge(), () -> stuckObjects().isEmpty());
    } catch (AssertionError e) {
      stuck.addAll(stuckObjects());
    }
    Set<String> volumeHandles = new HashSet<>();
    cluster.client.persistentVolumes().list().getItems().stream().filter(pv -> pv.getSpec().getCsi() != null)
        .forEach(pv -> volumeHandles.add(pv.getSpec().getCsi().getVolumeHandle()));
    Set<String> snapshotHandles = new HashSet<>();
    cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT_CONTENT).list().getItems().forEach(c -> {
      if (c.getAdditionalProperties().get("status") instanceof Map<?, ?> st
          && st.get("snapshotHandle") instanceof String h) {
        snapshotHandles.add(h);
      }
    });
    List<String> leaks = new ArrayList<>();
    try {
      Eventually.await("no leak", config.converge(), () -> leaks(volumeHandles, snapshotHandles).isEmpty());
    } catch (AssertionError e) {
      leaks.addAll(leaks(volumeHandles, snapshotHandles));
    }
    List<String> left = new ArrayList<>();
    try {
      Eventually.await("nothing left on any node", Duration.ofMinutes(2), () -> leftOnNode(volumeHandles).isEmpty());
    } catch (AssertionError e) {
      left.addAll(leftOnNode(volumeHandles));
    }
    return new Ledger(config.seed(), ran, operations, faults, List.copyOf(convergence), unconverged.get(), leaks,
        stuck, mismatches.get(), left, List.copyOf(neededAHuman));
  }

  private List<String> stuckObjects() {
    List<String> stuck = new ArrayList<>();
    cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).list().getItems()
        .forEach(p -> stuck.add("pvc " + p.getMetadata().getName()));
    cluster.client.pods().inNamespace(cluster.namespace).list().getItems()
        .forEach(p -> stuck.add("pod " + p.getMetadata().getName()));
    cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT).inNamespace(cluster.namespace).list()
        .getItems().forEach(s -> stuck.add("volumesnapshot " + s.getMetadata().getName()));
    Set<String> pvs = new HashSet<>();
    cluster.client.persistentVolumes().list().getItems().forEach(pv -> {
      if (pv.getSpec().getClaimRef() != null && cluster.namespace.equals(pv.getSpec().getClaimRef().getNamespace())) {
        pvs.add(pv.getMetadata().getName());
        stuck.add("pv " + pv.getMetadata().getName());
      }
    });
    cluster.client.storage().v1().volumeAttachments().list().getItems().stream()
        .filter(va -> pvs.contains(va.getSpec().getSource().getPersistentVolumeName())
            || va.getMetadata().getDeletionTimestamp() != null)
        .forEach(va -> stuck.add("volumeattachment " + va.getMetadata().getName()));
    cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT_CONTENT).list().getItems().stream()
        .filter(c -> c.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec
            && spec.get("volumeSnapshotRef") instanceof Map<?, ?> ref && cluster.namespace.equals(ref.get("namespace")))
        .forEach(c -> stuck.add("volumesnapshotcontent " + c.getMetadata().getName()));
    return stuck;
  }

  /** EC2 volumes and snapshots, EFS access points, that no PV or VolumeSnapshotContent names. */
  private List<String> leaks(Set<String> volumeHandles, Set<String> snapshotHandles) {
    List<String> leaks = new ArrayList<>();
    try (Ec2Client ec2 = local.ec2(); EfsClient efs = local.efs()) {
      ec2.describeVolumes().volumes().stream().filter(v -> !"deleted".equals(v.stateAsString()))
          .filter(v -> !volumeHandles.contains(v.volumeId())).forEach(v -> leaks.add("EC2 volume " + v.volumeId()));
      ec2.describeSnapshots(r -> r.ownerIds("self")).snapshots().stream()
          .filter(s -> !snapshotHandles.contains(s.snapshotId())).forEach(s -> leaks.add("EC2 snapshot "
              + s.snapshotId()));
      efs.describeAccessPoints(r -> r.fileSystemId(local.fileSystemId())).accessPoints().stream()
          .filter(ap -> volumeHandles.stream().noneMatch(h -> h.endsWith("::" + ap.accessPointId())))
          .forEach(ap -> leaks.add("EFS access point " + ap.accessPointId()));
    }
    leaks.removeAll(before);
    return leaks;
  }

  /** Mounts of a CSI volume on any node and loop devices that belong to no live volume. */
  private List<String> leftOnNode(Set<String> volumeHandles) {
    Set<String> pvNames = new HashSet<>();
    cluster.client.persistentVolumes().list().getItems().forEach(pv -> pvNames.add(pv.getMetadata().getName()));
    List<String> left = new ArrayList<>();
    // Every node's mounts, each in its own mount namespace ("NODE MOUNT-POINT").
    for (String line : local.harness("mounts").lines().toList()) {
      String m = line.substring(line.indexOf(' ') + 1);
      if (!m.contains("kubernetes.io/csi") && !m.contains("kubernetes.io~csi")) {
        continue;
      }
      // A staging path names a hash of the volume handle, not the PV: one is live while any CSI PV is.
      boolean live = pvNames.stream().anyMatch(m::contains) || volumeHandles.stream().anyMatch(m::contains)
          || m.contains("/globalmount") && !volumeHandles.isEmpty()
          || !m.contains("pvc-") && !m.contains("vol-") && !m.contains("/globalmount");
      if (!live) {
        left.add("mount " + line);
      }
    }
    for (String back : Teardown.loopDevices(local.loopDirectory())) {
      if (volumeHandles.stream().noneMatch(back::contains)) {
        left.add("loop device over " + back);
      }
    }
    return left;
  }

  // ---------------------------------------------------------------- helpers

  private static void count(Map<String, Integer> counts, String what) {
    synchronized (counts) {
      counts.merge(what, 1, Integer::sum);
    }
  }
}
