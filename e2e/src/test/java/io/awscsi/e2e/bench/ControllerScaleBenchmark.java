package io.awscsi.e2e.bench;

import csi.v1.CapacityRange;
import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.ControllerUnpublishVolumeRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.Topology;
import csi.v1.TopologyRequirement;
import csi.v1.VolumeCapability;
import io.awscsi.ebs.limits.VolumeAttachLimitSettings;
import io.awscsi.ebs.limits.VolumeAttachLimits;
import io.awscsi.local.LocalAws;
import io.awscsi.realism.ActionStats;
import io.awscsi.realism.AwsError;
import io.awscsi.realism.CallStats;
import io.awscsi.realism.Fault;
import io.awscsi.realism.InjectedFault;
import io.awscsi.realism.RealismProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.InstanceType;
import software.amazon.awssdk.services.efs.EfsClient;

/**
 * The controllers at scale, as users run them: the EBS (and EFS) controller process of the built distribution over
 * its socket, driven by a client that behaves like the sidecars the chart installs (their timeouts, worker threads
 * and retry backoff read from the chart's render), against moto behind the realism layer's realistic profile.
 *
 * <p>Runs, each on fresh emulated AWS with a fresh controller process: {@code ebs:N} (N create / publish / unpublish /
 * delete lifecycles over the nodes, at most as many volumes on a node as both the realism layer's per-instance limit
 * and the driver's own limit allow), {@code faults:N} (the same under a fault mix: 5xx answers, a neighbour's bursts
 * that empty the account's buckets, slow attaches) and {@code efs:N} (N concurrent CreateVolume/DeleteVolume of
 * access-point volumes on one file system that already has 1,000 access points). Each run prints its floor (see
 * {@link LifecycleFloor}) and details; the end prints one table.
 *
 * <p>Arguments: {@code --dist DIR --ebs-render FILE --efs-render FILE [--runs ebs:200,ebs:1000,...] [--nodes 50]
 * [--table FILE] [--sidecar-workers N]}; the last puts N in place of the chart's {@code --worker-threads} of each
 * work queue, e.g. N = the run's lifecycles for several clusters' provisioners (or a burst of retries) calling at once.
 *
 * <p>Side by side: {@code --baseline DIR} (a previous release's distribution), {@code --upstream BINARY
 * --upstream-uid UID --upstream-gid GID --upstream-render FILE} (upstream's EBS controller with the arguments upstream's chart renders,
 * run as a uid whose packets a firewall rule keeps on loopback) and {@code --compare ebs:200,ebs:1000} (the runs that
 * compare; default all EBS runs of {@code --runs}): each compared run is run once per form, alternated (previous,
 * current, upstream), each on fresh emulated AWS, with the same client; a second table puts their figures and the
 * ratios side by side.
 */
public final class ControllerScaleBenchmark {

  private static final String ZONE = LocalAws.ZONE;
  private static final List<String> EBS_METHODS = List.of("CreateVolume", "ControllerPublishVolume",
      "ControllerUnpublishVolume", "DeleteVolume");
  private static final List<String> DESCRIBES = List.of("DescribeVolumes", "DescribeInstances",
      "DescribeVolumesModifications", "DescribeSnapshots");
  private static final int EXISTING_ACCESS_POINTS = 1000;
  private static final int FLOOR_TRIALS = 200;

  /** One row of the final table; {@code rssMiB} is idle, peak and 40 s after the load; {@code load} the 1-min load. */
  record Row(String run, int n, double wall, double floor, long failed, long throttled, long nonOk,
      Map<String, double[]> p50p99, String calls, String memory, double cpuPerLifecycle, String subject,
      long[] rssMiB, double startupSeconds, double startupCpuSeconds, String load) {}

  private final Path dist;
  private final ChartRender ebsRender;
  private final ChartRender efsRender;
  private final int nodes;
  /** In place of the chart's worker threads per work queue; 0 keeps the chart's. */
  private final int sidecarWorkers;
  private final List<Row> rows = new ArrayList<>();
  /** Upstream's chart render, for its controller's arguments (with --upstream). */
  private ChartRender upstreamRender;

  private ControllerScaleBenchmark(Path dist, ChartRender ebsRender, ChartRender efsRender, int nodes,
      int sidecarWorkers) {
    this.dist = dist;
    this.ebsRender = ebsRender;
    this.efsRender = efsRender;
    this.nodes = nodes;
    this.sidecarWorkers = sidecarWorkers;
  }

  private ChartRender.Sidecar sidecar(ChartRender render, String name, Duration defaultTimeout) {
    ChartRender.Sidecar chart = render.sidecar(name, defaultTimeout);
    return sidecarWorkers > 0 ? chart.withWorkers(sidecarWorkers) : chart;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    Path dist = Path.of(options.getOrDefault("dist", "dist/aws-csi-driver")).toAbsolutePath();
    var bench = new ControllerScaleBenchmark(dist, ChartRender.read(Path.of(options.get("ebs-render"))),
        ChartRender.read(Path.of(options.get("efs-render"))), Integer.parseInt(options.getOrDefault("nodes", "50")),
        Integer.parseInt(options.getOrDefault("sidecar-workers", "0")));
    ControllerProcess.Subject current = ControllerProcess.Subject.distribution("current", dist);
    ControllerProcess.Subject previous = options.containsKey("baseline")
        ? ControllerProcess.Subject.distribution("previous", Path.of(options.get("baseline")).toAbsolutePath()) : null;
    ControllerProcess.Subject upstream = null;
    if (options.containsKey("upstream")) {
      upstream = ControllerProcess.Subject.upstream(Path.of(options.get("upstream")).toAbsolutePath(),
          Integer.parseInt(options.getOrDefault("upstream-uid", "-1")),
          Integer.parseInt(options.getOrDefault("upstream-gid", "-1")));
      bench.upstreamRender = ChartRender.read(Path.of(options.get("upstream-render")));
    }
    String runs = options.getOrDefault("runs", "ebs:200,ebs:1000,ebs:3000,faults:1000,efs:500");
    List<String> compare = List.of(options.getOrDefault("compare", runs).split(",")).stream().map(String::trim)
        .toList();
    for (String run : runs.split(",")) {
      String[] parts = run.trim().split(":");
      int n = Integer.parseInt(parts[1]);
      // Alternated per run, previous first: a drift of the machine's load shows in both forms' figures.
      List<ControllerProcess.Subject> subjects = new ArrayList<>();
      if (compare.contains(run.trim())) {
        if (previous != null) {
          subjects.add(previous);
        }
        subjects.add(current);
        if (upstream != null && !parts[0].equals("efs")) {
          subjects.add(upstream);
        }
      } else {
        subjects.add(current);
      }
      for (ControllerProcess.Subject subject : subjects) {
        switch (parts[0]) {
          case "ebs" -> bench.ebs("ebs", n, false, subject);
          case "faults" -> bench.ebs("ebs + faults", n, true, subject);
          case "efs" -> bench.efs(n, subject);
          default -> throw new IllegalArgumentException("unknown run " + run + ": use ebs:N, faults:N or efs:N");
        }
      }
    }
    String table = bench.table();
    String comparison = bench.comparisonTable();
    System.out.println();
    System.out.println(table);
    if (!comparison.isEmpty()) {
      System.out.println(comparison);
    }
    if (options.containsKey("table")) {
      Files.writeString(Path.of(options.get("table")), table + (comparison.isEmpty() ? "" : "\n" + comparison));
    }
  }

  /** The 1-minute load average now (the machine is shared: each figure says under which load it was taken). */
  private static String loadNow() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (java.io.IOException e) {
      return "?";
    }
  }

  // ---- EBS

  private void ebs(String label, int n, boolean withFaults, ControllerProcess.Subject subject) throws Exception {
    RealismProfile profile = RealismProfile.realistic();
    ChartRender.Sidecar provisioner = sidecar(ebsRender, "csi-provisioner", Duration.ofSeconds(15));
    ChartRender.Sidecar attacher = sidecar(ebsRender, "csi-attacher", Duration.ofSeconds(15));
    LifecycleFloor.Faults faults = withFaults
        ? new LifecycleFloor.Faults(0.03, 30, 40, 0.05, u -> 20 + 20 * u) : LifecycleFloor.Faults.NONE;
    LifecycleFloor.Result floor = LifecycleFloor.simulate(profile, n, nodes, faults, FLOOR_TRIALS, 17);
    String loadBefore = loadNow();
    System.out.printf("%n=== %s: N=%d lifecycles over %d nodes, realism profile 'realistic'; controller: %s (%s); "
        + "load %s%n", label, n, nodes, subject.label(), subject.path(), loadBefore);
    System.out.println("client: " + provisioner + " (claims and volumes: one queue each); " + attacher);
    printFloor(floor, profile, faults);

    Path work = Files.createTempDirectory(Path.of("/tmp"), "ctlbench-");
    try (LocalAws aws = LocalAws.start(profile); Ec2Client ec2 = LocalAws.ec2(aws.endpoint())) {
      List<String> instances = new ArrayList<>(List.of(aws.instanceId()));
      ec2.runInstances(r -> r.imageId("ami-0123456789abcdef0").minCount(nodes - 1).maxCount(nodes - 1)
              .instanceType(InstanceType.fromValue(LocalAws.INSTANCE_TYPE)).placement(p -> p.availabilityZone(ZONE)))
          .instances().forEach(i -> instances.add(i.instanceId()));
      // The scheduler places no more volumes on a node than the node reports (the driver's limit for the instance
      // type, its root volume reserved) and than EC2 lets it hold (the realism layer's limit, root included).
      int driverLimit = (int) VolumeAttachLimits.withSettings(VolumeAttachLimitSettings.defaults())
          .maxVolumesPerNode(LocalAws.INSTANCE_TYPE, 1, 0);
      int perNode = Math.min(driverLimit, profile.attachmentLimit() - 1);
      System.out.printf("attach limit per node: %d (driver's max_volumes_per_node for %s: %d; realism layer: %d "
          + "with the root volume)%n", perNode, LocalAws.INSTANCE_TYPE, driverLimit, profile.attachmentLimit());
      Neighbour neighbour = withFaults ? new Neighbour(ec2, instances.getFirst()) : null;

      List<String> pluginArgs = subject.upstream() ? upstreamRender.controllerPlugin("ebs-plugin").args()
          : ebsRender.controllerPlugin("ebs-plugin").args();
      try (ControllerProcess driver = ControllerProcess.start(subject, pluginArgs, aws.driverEnvironment(), work)) {
        System.out.printf("start to GetPluginInfo answered: %.3f s, CPU %.2f s%n", driver.startupSeconds(),
            driver.startupCpuSeconds());
        Thread.sleep(5000);
        long idleRss = driver.rssKiB();
        ControllerProcess.Histogram idleHistogram = driver.histogram();
        long idleHeap = idleHistogram.totalBytes();
        driver.nmtBaseline();
        aws.proxy().resetStats();
        double cpu0 = driver.cpuSeconds();
        Map<String, SidecarCaller.MethodStats> stats = new ConcurrentHashMap<>();
        long giveUpAt = System.nanoTime() + (long) ((3 * floor.meanSeconds() + 300) * 1e9);
        List<InjectedFault> injected = withFaults ? injectServerErrors(aws) : List.of();
        Thread bursts = neighbour == null ? null : Thread.ofVirtual().start(neighbour::burstEvery30s);
        AtomicInteger failed = new AtomicInteger();
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        Nodes scheduler = new Nodes(instances, perNode);
        long start = System.nanoTime();
        try (var claims = driver.connect(); var volumes = driver.connect(); var attach = driver.connect();
            ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
          var create = new SidecarCaller(provisioner, claims.channel(), stats, giveUpAt);
          var delete = new SidecarCaller(provisioner, volumes.channel(), stats, giveUpAt);
          var publish = new SidecarCaller(attacher, attach.channel(), stats, giveUpAt);
          for (int i = 0; i < n; i++) {
            int k = i;
            pool.submit(() -> {
              try {
                lifecycle(k, create, publish, delete, scheduler, aws, withFaults);
              } catch (RuntimeException e) {
                failed.incrementAndGet();
                if (failures.size() < 5) {
                  failures.add(e.toString());
                }
              }
            });
          }
        }
        double wall = (System.nanoTime() - start) / 1e9;
        if (bursts != null) {
          bursts.interrupt();
        }
        injected.forEach(InjectedFault::remove);
        double cpu = driver.cpuSeconds() - cpu0;
        CallStats ec2Stats = aws.stats();
        long peakRss = driver.peakRssKiB();
        Thread.sleep(40_000); // past the controller's compaction after 30 s without work
        long afterRss = driver.rssKiB();
        ControllerProcess.Histogram afterHistogram = driver.histogram();
        long afterHeap = afterHistogram.totalBytes();
        Thread.sleep(6_000); // the histogram's full GC shrinks the heap; glibc gives memory back every 5 s
        long afterGcRss = driver.rssKiB();
        System.out.print(driver.nmtDiff());

        System.out.printf("wall %.1f s, floor %.1f s: %.3fx; failed lifecycles %d %s%n", wall, floor.meanSeconds(),
            wall / floor.meanSeconds(), failed.get(), failures);
        Map<String, double[]> latencies = printCalls(stats, EBS_METHODS);
        printLastLifecycles(start, 4);
        long neighbourCalls = neighbour == null ? 0 : neighbour.calls.get();
        long throttled = ec2Stats.totalThrottled() - (neighbour == null ? 0 : neighbour.throttled.get());
        String describes = printEc2(ec2Stats, n, neighbour);
        String memory = String.format("RSS %d / %d / %d (%d after a full GC) MiB; live heap %.1f / %.1f MiB; "
            + "start to GetPluginInfo %.2f s, CPU %.2f s", idleRss / 1024, peakRss / 1024, afterRss / 1024,
            afterGcRss / 1024, idleHeap / 1048576.0, afterHeap / 1048576.0, driver.startupSeconds(),
            driver.startupCpuSeconds());
        System.out.printf("controller: RSS idle %d MiB, peak %d MiB, 40 s after the load %d MiB, after a full GC %d "
            + "MiB; live heap after a full GC: idle %.1f MiB, after the load %.1f MiB (%+.0f bytes per lifecycle); CPU "
            + "%.1f s = %.4f s per lifecycle%n", idleRss / 1024, peakRss / 1024, afterRss / 1024, afterGcRss / 1024,
            idleHeap / 1048576.0, afterHeap / 1048576.0, (afterHeap - idleHeap) / (double) n, cpu, cpu / n);
        System.out.print("  live objects that grew most from idle to after the load:\n"
            + afterHistogram.growthOver(idleHistogram, 8));
        if (neighbour != null) {
          System.out.printf("fault mix: 5xx on 3%% of mutating calls and DescribeVolumes (%d answered), neighbour "
              + "bursts (40 calls of each mutating action every 30 s: %d calls, %d of them throttled), slow attaches "
              + "(5%% held 20-40 s in attaching: %d)%n", injected.stream().mapToInt(InjectedFault::hits).sum(),
              neighbourCalls, neighbour.throttled.get(), slowAttaches.get());
        }
        long nonOk = stats.values().stream().mapToLong(SidecarCaller.MethodStats::failed).sum();
        rows.add(new Row(label, n, wall, floor.meanSeconds(), failed.get(), throttled, nonOk, latencies, describes,
            memory, cpu / n, subject.label(), new long[] {idleRss / 1024, peakRss / 1024, afterRss / 1024},
            driver.startupSeconds(), driver.startupCpuSeconds(), loadBefore + "-" + loadNow()));
      }
    } finally {
      deleteTree(work);
    }
  }

  private final AtomicInteger slowAttaches = new AtomicInteger();

  private void lifecycle(int k, SidecarCaller create, SidecarCaller publish, SidecarCaller delete, Nodes scheduler,
      LocalAws aws, boolean withFaults) {
    String name = "pvc-" + new UUID(0x5ca1e, k).toString().substring(9);
    VolumeCapability ext4 = VolumeCapability.newBuilder()
        .setMount(VolumeCapability.MountVolume.newBuilder().setFsType("ext4"))
        .setAccessMode(VolumeCapability.AccessMode.newBuilder()
            .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER)).build();
    Topology zone = Topology.newBuilder().putSegments("topology.kubernetes.io/zone", ZONE).build();
    CreateVolumeRequest request = CreateVolumeRequest.newBuilder().setName(name)
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(1L << 30))
        .addVolumeCapabilities(ext4)
        .putParameters("type", "gp3")
        // The provisioner takes csi.storage.k8s.io/fstype out of the parameters (the capability carries it) and adds
        // the PVC/PV names (--extra-create-metadata); upstream refuses the former as an unknown key.
        .putParameters("csi.storage.k8s.io/pvc/name", "data-" + k)
        .putParameters("csi.storage.k8s.io/pvc/namespace", "bench")
        .putParameters("csi.storage.k8s.io/pv/name", name)
        .setAccessibilityRequirements(TopologyRequirement.newBuilder().addRequisite(zone).addPreferred(zone))
        .build();
    long[] times = new long[8];
    times[0] = System.nanoTime();
    var volume = create.call("CreateVolume", name, s -> s.createVolume(request)).getVolume();
    times[1] = System.nanoTime();
    String volumeId = volume.getVolumeId();
    String node = scheduler.take(k);
    try {
      if (withFaults && ThreadLocalRandom.current().nextDouble() < 0.05) {
        slowAttaches.incrementAndGet();
        aws.proxy().holdAttaching(volumeId);
        long hold = (long) (20_000 + 20_000 * ThreadLocalRandom.current().nextDouble());
        Thread.ofVirtual().start(() -> {
          try {
            Thread.sleep(hold);
          } catch (InterruptedException e) {
            return;
          }
          aws.proxy().releaseAttaching(volumeId);
        });
      }
      times[2] = System.nanoTime();
      publish.call("ControllerPublishVolume", volumeId, s -> s.controllerPublishVolume(
          ControllerPublishVolumeRequest.newBuilder().setVolumeId(volumeId).setNodeId(node)
              .setVolumeCapability(ext4).putAllVolumeContext(volume.getVolumeContextMap()).build()));
      times[3] = System.nanoTime();
      publish.call("ControllerUnpublishVolume", volumeId, s -> s.controllerUnpublishVolume(
          ControllerUnpublishVolumeRequest.newBuilder().setVolumeId(volumeId).setNodeId(node).build()));
      times[4] = System.nanoTime();
    } finally {
      scheduler.release(node);
    }
    times[5] = System.nanoTime();
    delete.call("DeleteVolume", volumeId, s -> s.deleteVolume(
        DeleteVolumeRequest.newBuilder().setVolumeId(volumeId).build()));
    times[6] = System.nanoTime();
    timelines.add(times);
  }

  /** When each lifecycle's calls were sent and answered (nanoTime): create, publish, unpublish, delete. */
  private final java.util.Queue<long[]> timelines = new java.util.concurrent.ConcurrentLinkedQueue<>();

  /** The lifecycles that ended last: what the wall time is made of. */
  private void printLastLifecycles(long start, int rows) {
    List<long[]> all = new ArrayList<>(timelines);
    all.sort((a, b) -> Long.compare(b[6], a[6]));
    System.out.println("the lifecycles that ended last (s from the start: create sent, answered after; publish, "
        + "unpublish, delete: answered after):");
    for (long[] t : all.subList(0, Math.min(rows, all.size()))) {
      System.out.printf("  create sent %6.2f, answered %5.2f later; publish %4.2f; unpublish %4.2f; delete %4.2f; "
          + "ended %6.2f%n", (t[0] - start) / 1e9, (t[1] - t[0]) / 1e9, (t[3] - t[2]) / 1e9, (t[4] - t[3]) / 1e9,
          (t[6] - t[5]) / 1e9, (t[6] - start) / 1e9);
    }
    timelines.clear();
  }

  /** The scheduler's view of the nodes: a volume goes to a node with room (round-robin from its index). */
  private static final class Nodes {
    private final List<String> ids;
    private final int perNode;
    private final int[] used;
    private final Semaphore room;

    Nodes(List<String> ids, int perNode) {
      this.ids = List.copyOf(ids);
      this.perNode = perNode;
      this.used = new int[ids.size()];
      this.room = new Semaphore(ids.size() * perNode);
    }

    String take(int k) {
      room.acquireUninterruptibly();
      synchronized (this) {
        for (int i = 0; i < ids.size(); i++) {
          int node = (k + i) % ids.size();
          if (used[node] < perNode) {
            used[node]++;
            return ids.get(node);
          }
        }
      }
      throw new IllegalStateException("no node has room although the count said so");
    }

    void release(String id) {
      synchronized (this) {
        used[ids.indexOf(id)]--;
      }
      room.release();
    }
  }

  private static List<InjectedFault> injectServerErrors(LocalAws aws) {
    List<InjectedFault> faults = new ArrayList<>();
    Random random = new Random(7);
    for (String action : LifecycleFloor.ACTIONS) {
      faults.add(aws.proxy().injectFault(Fault.ec2(action, AwsError.of(500, "InternalError",
          "We encountered an internal error. Please try again.")).when(r -> nextDouble(random) < 0.03)));
    }
    faults.add(aws.proxy().injectFault(Fault.ec2("DescribeVolumes", AwsError.of(503, "Unavailable",
        "The service is unavailable. Please try again shortly.")).when(r -> nextDouble(random) < 0.03)));
    return faults;
  }

  private static synchronized double nextDouble(Random random) {
    return random.nextDouble();
  }

  /**
   * Another client of the account: every 30 s it sends 40 calls of each mutating action at once (each fails after
   * taking its token), so the account's buckets are nearly empty while the driver's own buckets say otherwise.
   */
  private static final class Neighbour {
    final AtomicLong calls = new AtomicLong();
    final AtomicLong throttled = new AtomicLong();
    private final Ec2Client ec2;
    private final String instanceId;

    Neighbour(Ec2Client ec2, String instanceId) {
      this.ec2 = ec2;
      this.instanceId = instanceId;
      // A token of its own: its later CreateVolume calls with other parameters are IdempotentParameterMismatch.
      ec2.createVolume(r -> r.availabilityZone(ZONE).size(1).clientToken("neighbour"));
    }

    void burstEvery30s() {
      try {
        while (!Thread.currentThread().isInterrupted()) {
          Thread.sleep(30_000);
          try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 40; i++) {
              pool.submit(() -> send(() -> ec2.createVolume(r -> r.availabilityZone(ZONE).size(2)
                  .clientToken("neighbour"))));
              pool.submit(() -> send(() -> ec2.attachVolume(r -> r.volumeId("vol-0000000000000dead")
                  .instanceId(instanceId).device("/dev/xvdzz"))));
              pool.submit(() -> send(() -> ec2.detachVolume(r -> r.volumeId("vol-0000000000000dead"))));
              pool.submit(() -> send(() -> ec2.deleteVolume(r -> r.volumeId("vol-0000000000000dead"))));
            }
          }
        }
      } catch (InterruptedException e) {
        // The run is over.
      }
    }

    private void send(Runnable call) {
      calls.incrementAndGet();
      try {
        call.run();
      } catch (software.amazon.awssdk.awscore.exception.AwsServiceException e) {
        if (e.isThrottlingException()) {
          throttled.incrementAndGet();
        }
      } catch (RuntimeException e) {
        // Errors are the point: only the tokens matter.
      }
    }
  }

  // ---- EFS

  private void efs(int n, ControllerProcess.Subject subject) throws Exception {
    RealismProfile profile = RealismProfile.realistic();
    ChartRender.Sidecar provisioner = sidecar(efsRender, "csi-provisioner", Duration.ofSeconds(15));
    System.out.printf("%n=== efs: %d concurrent CreateVolume + DeleteVolume (efs-ap) on one file system with %d "
        + "access points, realism profile 'realistic'; controller: %s%n", n, EXISTING_ACCESS_POINTS,
        subject.label());
    String loadBefore = loadNow();
    System.out.println("client: " + provisioner + " (claims and volumes: one queue each)");
    int pageSize = 1000;
    int pages = (EXISTING_ACCESS_POINTS + n) / pageSize + 1;
    LifecycleFloor.Result floor = LifecycleFloor.simulateEfs(profile, n, pages, FLOOR_TRIALS, 23);
    System.out.printf("floor %.1f s (p5-p95 %.1f-%.1f): %s; one listing of up to %d pages before the first "
        + "create (DescribeAccessPoints %d per page), each volume one CreateAccessPoint and one DeleteAccessPoint "
        + "round trip (median %d ms); an ideal controller simulated %d times%n", floor.meanSeconds(),
        floor.p5Seconds(), floor.p95Seconds(), String.join("; ", floor.bucketLines()), pages, pageSize,
        profile.apiCall().median().toMillis(), floor.trials());

    Path work = Files.createTempDirectory(Path.of("/tmp"), "efsbench-");
    try (LocalAws aws = LocalAws.start(profile); EfsClient moto = LocalAws.efs(aws.proxy().upstream())) {
      String fs = aws.fileSystemId();
      // The existing access points go to moto directly (not through the realism layer: setup is not measured);
      // they hold every other id from 50000 on, so allocation has to find the gaps.
      try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
        for (int i = 0; i < EXISTING_ACCESS_POINTS; i++) {
          long gid = 50_000 + 2L * i;
          int k = i;
          pool.submit(() -> moto.createAccessPoint(r -> r.fileSystemId(fs).clientToken("existing-" + k)
              .posixUser(u -> u.uid(gid).gid(gid)).rootDirectory(d -> d.path("/existing/" + k))));
        }
      }
      Map<Long, String> existing = new ConcurrentHashMap<>();
      for (int i = 0; i < EXISTING_ACCESS_POINTS; i++) {
        existing.put(50_000 + 2L * i, "existing-" + i);
      }
      try (ControllerProcess driver = ControllerProcess.start(subject, efsRender.controllerPlugin("efs-plugin").args(),
          aws.driverEnvironment(), work)) {
        Thread.sleep(5000);
        long idleRss = driver.rssKiB();
        ControllerProcess.Histogram idleHistogram = driver.histogram();
        long idleHeap = idleHistogram.totalBytes();
        aws.proxy().resetStats();
        double cpu0 = driver.cpuSeconds();
        Map<String, SidecarCaller.MethodStats> stats = new ConcurrentHashMap<>();
        long giveUpAt = System.nanoTime() + (long) ((3 * floor.meanSeconds() + 300) * 1e9);
        AtomicInteger failed = new AtomicInteger();
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        Map<Long, String> live = new ConcurrentHashMap<>(existing);
        java.util.Set<String> deleting = ConcurrentHashMap.newKeySet();
        AtomicInteger collisions = new AtomicInteger();
        Map<Long, Boolean> handedOut = new ConcurrentHashMap<>();
        long start = System.nanoTime();
        try (var claims = driver.connect(); var volumes = driver.connect();
            ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
          var create = new SidecarCaller(provisioner, claims.channel(), stats, giveUpAt);
          var delete = new SidecarCaller(provisioner, volumes.channel(), stats, giveUpAt);
          for (int i = 0; i < n; i++) {
            int k = i;
            pool.submit(() -> {
              try {
                String name = "pvc-" + new UUID(0xef5, k).toString().substring(9);
                CreateVolumeRequest request = CreateVolumeRequest.newBuilder().setName(name)
                    .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(5L << 30))
                    .addVolumeCapabilities(VolumeCapability.newBuilder()
                        .setMount(VolumeCapability.MountVolume.getDefaultInstance())
                        .setAccessMode(VolumeCapability.AccessMode.newBuilder()
                            .setMode(VolumeCapability.AccessMode.Mode.MULTI_NODE_MULTI_WRITER)))
                    .putParameters("provisioningMode", "efs-ap").putParameters("fileSystemId", fs)
                    .putParameters("directoryPerms", "700").putParameters("basePath", "/dynamic")
                    .putParameters("csi.storage.k8s.io/pvc/name", "shared-" + k)
                    .putParameters("csi.storage.k8s.io/pvc/namespace", "bench")
                    .putParameters("csi.storage.k8s.io/pv/name", name).build();
                String volumeId = create.call("CreateVolume", name, s -> s.createVolume(request)).getVolume()
                    .getVolumeId();
                String accessPointId = volumeId.substring(volumeId.lastIndexOf(':') + 1);
                long gid = moto.describeAccessPoints(r -> r.accessPointId(accessPointId)).accessPoints()
                    .getFirst().posixUser().gid();
                handedOut.put(gid, Boolean.TRUE);
                // A GID may come back once its access point is being deleted, never while that one lives.
                String holder = live.put(gid, accessPointId);
                if (holder != null && !deleting.contains(holder)) {
                  collisions.incrementAndGet();
                }
                deleting.add(accessPointId);
                delete.call("DeleteVolume", volumeId, s -> s.deleteVolume(
                    DeleteVolumeRequest.newBuilder().setVolumeId(volumeId).build()));
                live.remove(gid, accessPointId);
              } catch (RuntimeException e) {
                failed.incrementAndGet();
                if (failures.size() < 5) {
                  failures.add(e.toString());
                }
              }
            });
          }
        }
        double wall = (System.nanoTime() - start) / 1e9;
        double cpu = driver.cpuSeconds() - cpu0;
        CallStats efsStats = aws.stats();
        long peakRss = driver.peakRssKiB();
        Thread.sleep(40_000); // past the controller's compaction after 30 s without work
        long afterRss = driver.rssKiB();
        ControllerProcess.Histogram afterHistogram = driver.histogram();
        long afterHeap = afterHistogram.totalBytes();
        Thread.sleep(6_000); // the histogram's full GC shrinks the heap; glibc gives memory back every 5 s
        long afterGcRss = driver.rssKiB();
        System.out.printf("wall %.1f s, floor %.1f s: %.3fx; failed %d %s%n", wall, floor.meanSeconds(),
            wall / floor.meanSeconds(), failed.get(), failures);
        Map<String, double[]> latencies = printCalls(stats, List.of("CreateVolume", "DeleteVolume"));
        StringBuilder calls = new StringBuilder();
        System.out.printf("EFS calls per volume (all %d, throttled %d):%n", efsStats.totalCalls(),
            efsStats.totalThrottled());
        for (var e : new TreeMap<>(efsStats.services().getOrDefault("efs", Map.of())).entrySet()) {
          ActionStats a = e.getValue();
          System.out.printf("  %-30s %7.2f  (calls %d, throttled %d, errors %d %s)%n", e.getKey(),
              a.calls() / (double) n, a.calls(), a.throttled(), a.errors(), a.errorCodes());
          calls.append(calls.isEmpty() ? "" : ", ").append(e.getKey()).append(' ')
              .append(String.format("%.2f", a.calls() / (double) n));
        }
        System.out.printf("GIDs: %d handed out, %d distinct, %d given to a second live access point%n",
            n - failed.get(), handedOut.size(), collisions.get());
        calls.append("; GIDs ").append(handedOut.size()).append(" distinct of ").append(n - failed.get())
            .append(", ").append(collisions.get()).append(" reused while live");
        System.out.printf("controller: RSS idle %d MiB, peak %d MiB, after %d MiB, after a full GC %d MiB; live heap "
            + "idle %.1f MiB, after %.1f MiB; CPU %.1f s = %.4f s per volume%n", idleRss / 1024, peakRss / 1024,
            afterRss / 1024, afterGcRss / 1024, idleHeap / 1048576.0, afterHeap / 1048576.0, cpu, cpu / n);
        System.out.print("  live objects that grew most from idle to after the load:\n"
            + afterHistogram.growthOver(idleHistogram, 8));
        long nonOk = stats.values().stream().mapToLong(SidecarCaller.MethodStats::failed).sum();
        rows.add(new Row("efs (1,000 APs on the fs)", n, wall, floor.meanSeconds(), failed.get(),
            efsStats.totalThrottled(), nonOk, latencies, calls.toString(),
            String.format("RSS %d / %d / %d (%d after a full GC) MiB; live heap %.1f / %.1f MiB", idleRss / 1024,
                peakRss / 1024, afterRss / 1024, afterGcRss / 1024, idleHeap / 1048576.0, afterHeap / 1048576.0),
            cpu / n, subject.label(), new long[] {idleRss / 1024, peakRss / 1024, afterRss / 1024},
            driver.startupSeconds(), driver.startupCpuSeconds(), loadBefore + "-" + loadNow()));
      }
    } finally {
      deleteTree(work);
    }
  }

  // ---- printing

  private static void printFloor(LifecycleFloor.Result floor, RealismProfile profile, LifecycleFloor.Faults faults) {
    System.out.printf("floor %.1f s (p5-p95 over %d simulated runs %.1f-%.1f s), from the realism layer's settings:%n",
        floor.meanSeconds(), floor.trials(), floor.p5Seconds(), floor.p95Seconds());
    floor.bucketLines().forEach(l -> System.out.println("  " + l));
    System.out.printf("  one lifecycle at the medians: 4 API round trips (%d ms) + creation %.1f s + attach %.1f s + "
        + "detach %.1f s = %.2f s%n", profile.apiCall().median().toMillis(),
        profile.volumeCreation().median().toMillis() / 1000.0, profile.volumeAttach().median().toMillis() / 1000.0,
        profile.volumeDetach().median().toMillis() / 1000.0, floor.medianLifecycleSeconds());
    System.out.printf("  bound %.1f + %.2f = %.1f s; the simulated ideal controller (each call at its bucket's "
        + "earliest token in arrival order, each state change seen as it happens, each latency drawn as the layer "
        + "draws it%s) needs %.1f s; its busiest node held %d volumes at once%n", floor.bucketBoundSeconds(),
        floor.medianLifecycleSeconds(), floor.bucketBoundSeconds() + floor.medianLifecycleSeconds(),
        faults == LifecycleFloor.Faults.NONE ? "" : ", paying the fault mix's tokens, repeats and held attaches",
        floor.meanSeconds(), floor.peakAttachmentsPerNode());
  }

  private static Map<String, double[]> printCalls(Map<String, SidecarCaller.MethodStats> stats,
      List<String> methods) {
    Map<String, double[]> out = new LinkedHashMap<>();
    System.out.printf("%-27s %6s %8s %8s %8s %8s  %s%n", "CSI call (OK answers)", "ok", "p50 s", "p99 s", "max s",
        "non-OK", "non-OK by code");
    for (String method : methods) {
      SidecarCaller.MethodStats s = stats.getOrDefault(method, new SidecarCaller.MethodStats());
      List<Long> values = s.sortedOk();
      double p50 = pct(values, 50);
      double p99 = pct(values, 99);
      out.put(method, new double[] {p50, p99});
      System.out.printf("%-27s %6d %8.2f %8.2f %8.2f %8d  %s%n", method, values.size(), p50, p99,
          values.isEmpty() ? 0 : values.getLast() / 1e9, s.failed(), s.failuresByCode());
      s.failureSamples.forEach(f -> System.out.println("    e.g. " + f));
    }
    return out;
  }

  /** EC2 calls per volume by API; returns the Describe figures for the table. */
  private static String printEc2(CallStats stats, int n, Neighbour neighbour) {
    Map<String, ActionStats> ec2 = new TreeMap<>(stats.services().getOrDefault("ec2", Map.of()));
    System.out.printf("EC2 calls per volume (all %d, throttled %d%s):%n", stats.totalCalls(), stats.totalThrottled(),
        neighbour == null ? "" : ", the neighbour's " + neighbour.calls.get() + " calls included");
    long describes = 0;
    for (Map.Entry<String, ActionStats> e : ec2.entrySet()) {
      ActionStats a = e.getValue();
      System.out.printf("  %-30s %7.2f  (calls %d, throttled %d, errors %d %s)%n", e.getKey(), a.calls() / (double) n,
          a.calls(), a.throttled(), a.errors(), a.errorCodes());
      if (e.getKey().startsWith("Describe")) {
        describes += a.calls();
      }
    }
    String perApi = DESCRIBES.stream().map(d -> String.format("%.2f", stats.calls("ec2", d) / (double) n))
        .collect(Collectors.joining(" / "));
    System.out.printf("Describe calls per volume: %.3f (DescribeVolumes / Instances / VolumesModifications / "
        + "Snapshots: %s)%n", describes / (double) n, perApi);
    return String.format("%.3f (%s)", describes / (double) n, perApi);
  }

  private String table() {
    StringBuilder t = new StringBuilder();
    t.append("| run | N | wall / floor | failed | throttled | non-OK answers (retried) | CSI calls p50 / p99 s "
        + "| Describe calls per volume (Volumes / Instances / VolumesModifications / Snapshots), or EFS calls per "
        + "volume | controller memory: idle / peak / after | CPU s per lifecycle |\n");
    t.append("|---|---|---|---|---|---|---|---|---|---|\n");
    for (Row r : rows) {
      String latencies = r.p50p99().entrySet().stream().map(e -> String.format("%s %.2f / %.2f",
          e.getKey().replace("Controller", "").replace("Volume", ""), e.getValue()[0], e.getValue()[1]))
          .collect(Collectors.joining(", "));
      t.append(String.format("| %s | %,d | %.1f / %.1f s = **%.2fx** | %d | %d | %d | %s | %s | %s | %.4f |%n",
          r.subject().equals("current") ? r.run() : r.run() + " (" + r.subject() + ")", r.n(), r.wall(), r.floor(),
          r.wall() / r.floor(), r.failed(), r.throttled(), r.nonOk(), latencies,
          r.calls(), r.memory(), r.cpuPerLifecycle()));
    }
    return t.toString();
  }

  /**
   * The forms side by side, per run: each form's figures, then this build's over the previous release's and over
   * upstream's (below 1.00x: this build uses less or is faster). Empty when only this build ran.
   */
  String comparisonTable() {
    if (rows.stream().allMatch(r -> r.subject().equals("current"))) {
      return "";
    }
    StringBuilder t = new StringBuilder();
    t.append("| run | N | controller | failed | wall s | RSS MiB idle / peak / 40 s after | CPU s start-up / per "
        + "lifecycle | start to GetPluginInfo s | CSI calls p50 / p99 s | load (1 min) |\n");
    t.append("|---|---|---|---|---|---|---|---|---|---|\n");
    Map<String, List<Row>> byRun = new LinkedHashMap<>();
    rows.forEach(r -> byRun.computeIfAbsent(r.run() + ":" + r.n(), k -> new ArrayList<>()).add(r));
    for (List<Row> group : byRun.values()) {
      if (group.size() < 2) {
        continue;
      }
      for (Row r : group) {
        String latencies = r.p50p99().entrySet().stream().map(e -> String.format("%s %.2f / %.2f",
            shortName(e.getKey()), e.getValue()[0], e.getValue()[1])).collect(Collectors.joining(", "));
        t.append(String.format("| %s | %,d | %s | %d | %.1f | %d / %d / %d | %.2f / %.4f | %.3f | %s | %s |%n",
            r.run(), r.n(), r.subject(), r.failed(), r.wall(), r.rssMiB()[0], r.rssMiB()[1], r.rssMiB()[2],
            r.startupCpuSeconds(), r.cpuPerLifecycle(), r.startupSeconds(), latencies, r.load()));
      }
      Row now = group.stream().filter(r -> r.subject().equals("current")).findFirst().orElse(null);
      for (Row other : group) {
        if (now == null || other == now) {
          continue;
        }
        String latencies = now.p50p99().entrySet().stream().map(e -> {
          double[] o = other.p50p99().getOrDefault(e.getKey(), new double[2]);
          return String.format("%s %s / %s", shortName(e.getKey()), ratio(e.getValue()[0], o[0]),
              ratio(e.getValue()[1], o[1]));
        }).collect(Collectors.joining(", "));
        t.append(String.format(
            "| %s | %,d | **current / %s** | %d vs %d | %s | %s / %s / %s | %s / %s | %s | %s | |%n", now.run(),
            now.n(), other.subject(), now.failed(), other.failed(), ratio(now.wall(), other.wall()),
            ratio(now.rssMiB()[0], other.rssMiB()[0]), ratio(now.rssMiB()[1], other.rssMiB()[1]),
            ratio(now.rssMiB()[2], other.rssMiB()[2]), ratio(now.startupCpuSeconds(), other.startupCpuSeconds()),
            ratio(now.cpuPerLifecycle(), other.cpuPerLifecycle()),
            ratio(now.startupSeconds(), other.startupSeconds()), latencies));
      }
    }
    return t.toString();
  }

  private static String shortName(String method) {
    return method.replace("Controller", "").replace("Volume", "");
  }

  private static String ratio(double a, double b) {
    return b > 0 && !Double.isNaN(a) ? String.format("%.2fx", a / b) : "-";
  }

  private static double pct(List<Long> sorted, int percentile) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int rank = (int) Math.ceil(percentile / 100.0 * sorted.size());
    return sorted.get(Math.max(0, rank - 1)) / 1e9;
  }

  private static void deleteTree(Path dir) {
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (java.io.IOException e) {
      System.err.println("cannot remove " + dir + ": " + e.getMessage());
    }
  }
}
