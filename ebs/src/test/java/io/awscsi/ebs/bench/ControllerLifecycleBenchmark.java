package io.awscsi.ebs.bench;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.PublishRequest;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.ebs.controller.AttachmentObserver;
import io.awscsi.ebs.controller.EbsControllerOptions;
import io.awscsi.ebs.controller.EbsControllerProvider;
import io.awscsi.realism.ActionStats;
import io.awscsi.realism.CallStats;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.RealismProxy;
import io.awscsi.realism.process.MotoServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * N concurrent volume lifecycles (CreateVolume, ControllerPublishVolume, ControllerUnpublishVolume, DeleteVolume)
 * through the EBS controller provider against moto behind the realism layer with its realistic profile (creation
 * median 1.5 s / p99 4 s, attach and detach 2 s / 4 s) and EC2's default per-action throttling. Prints wall time,
 * p50/p99 per operation, EC2 calls per volume by API, throttled calls, failed operations, and p99 attach over the
 * emulated attach p99. Arguments: {@code [N] [nodes]} (defaults 200 and 10; an instance holds 26 data volumes).
 */
public final class ControllerLifecycleBenchmark {

  private static final String ZONE = "us-east-1a";
  private static final List<String> OPERATIONS = List.of("CreateVolume", "ControllerPublishVolume",
      "ControllerUnpublishVolume", "DeleteVolume");

  private ControllerLifecycleBenchmark() {}

  public static void main(String[] args) throws Exception {
    // The figures are the output: the driver's per-call INFO lines would bury them.
    io.awscsi.core.logging.LoggingSetup.configure(io.awscsi.core.logging.LoggingSetup.Format.TEXT,
        org.apache.logging.log4j.Level.WARN);
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    RealismProfile profile = RealismProfile.realistic();
    try (MotoServer moto = MotoServer.start();
        RealismProxy proxy = RealismProxy.builder().upstream(moto.endpoint()).profile(profile).start();
        Ec2Client ec2 = Ec2Client.builder().endpointOverride(proxy.endpoint()).region(Region.US_EAST_1)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDBENCH", "x")))
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry())).build()) {
      List<String> instances = new ArrayList<>();
      for (int i = 0; i < nodes; i++) {
        instances.add(ec2.runInstances(r -> r.imageId("ami-12c6146b").minCount(1).maxCount(1)
            .instanceType("m5.large").placement(p -> p.availabilityZone(ZONE))).instances().getFirst().instanceId());
        Thread.sleep(250); // stay inside RunInstances' own bucket; setup is not measured
      }
      proxy.resetStats();
      // The attacher's timeout (6 min) bounds every call, as in a cluster.
      EbsControllerOptions options = EbsControllerOptions.defaults("us-east-1")
          .withDefaultCallTimeout(Duration.ofMinutes(6));
      MetricsRegistry metrics = new MetricsRegistry();
      EbsControllerProvider provider = EbsControllerProvider.create(options, ec2, metrics, AttachmentObserver.NONE);

      Map<String, List<Long>> latencies = new ConcurrentHashMap<>();
      OPERATIONS.forEach(op -> latencies.put(op, new CopyOnWriteArrayList<>()));
      Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
      List<String> failureSamples = new CopyOnWriteArrayList<>();
      VolumeCapability mount = VolumeCapability.mount(AccessMode.SINGLE_NODE_WRITER, "ext4");
      TopologyRequirement topology = new TopologyRequirement(List.of(Map.of("topology.kubernetes.io/zone", ZONE)),
          List.of(Map.of("topology.kubernetes.io/zone", ZONE)));

      long start = System.nanoTime();
      try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
        for (int i = 0; i < n; i++) {
          String name = "pvc-bench-" + i;
          String node = instances.get(i % nodes);
          pool.submit(() -> {
            String volumeId;
            try {
              volumeId = timed(latencies, "CreateVolume", () -> provider.provisioner().createVolume(
                  new VolumeRequest(name, new CapacityRange(1L << 30, 0), List.of(mount), Map.of(), Map.of(),
                      Map.of(), new VolumeSource.Empty(), topology)).volumeId());
              timed(latencies, "ControllerPublishVolume", () -> provider.attacher().orElseThrow().publish(
                  new PublishRequest(volumeId, node, mount, false, Map.of(), Map.of())));
              timed(latencies, "ControllerUnpublishVolume", () -> {
                provider.attacher().orElseThrow().unpublish(volumeId, node, Map.of());
                return null;
              });
              timed(latencies, "DeleteVolume", () -> {
                provider.provisioner().deleteVolume(volumeId, Map.of());
                return null;
              });
            } catch (Failure f) {
              failures.computeIfAbsent(f.operation, k -> new AtomicInteger()).incrementAndGet();
              if (failureSamples.size() < 5) {
                failureSamples.add(f.operation + ": " + f.getCause().getMessage());
              }
            }
          });
        }
      }
      Duration wall = Duration.ofNanos(System.nanoTime() - start);
      report(n, nodes, wall, latencies, failures, failureSamples, proxy.stats(), profile);
      System.out.print(meanApiLatencies(metrics.scrape()));
    }
  }

  private static final class Failure extends RuntimeException {
    final String operation;

    Failure(String operation, RuntimeException cause) {
      super(cause);
      this.operation = operation;
    }
  }

  private static <T> T timed(Map<String, List<Long>> latencies, String operation,
      java.util.function.Supplier<T> call) {
    long start = System.nanoTime();
    try {
      T result = call.get();
      latencies.get(operation).add(System.nanoTime() - start);
      return result;
    } catch (DriverException | IllegalStateException e) {
      throw new Failure(operation, e);
    }
  }

  private static void report(int n, int nodes, Duration wall, Map<String, List<Long>> latencies,
      Map<String, AtomicInteger> failures, List<String> failureSamples, CallStats stats, RealismProfile profile) {
    StringBuilder out = new StringBuilder();
    out.append(String.format("EBS controller lifecycle benchmark: N=%d volumes, %d nodes, realism profile "
        + "'realistic', EC2 default throttling%n", n, nodes));
    out.append(String.format("wall time: %.1f s%n", wall.toMillis() / 1000.0));
    out.append(String.format("%-27s %6s %9s %9s %9s%n", "operation", "ok", "p50 s", "p99 s", "max s"));
    for (String op : OPERATIONS) {
      List<Long> values = new ArrayList<>(latencies.get(op));
      Collections.sort(values);
      out.append(String.format("%-27s %6d %9.2f %9.2f %9.2f%n", op, values.size(), pct(values, 50), pct(values, 99),
          values.isEmpty() ? 0 : values.getLast() / 1e9));
    }
    int failed = failures.values().stream().mapToInt(AtomicInteger::get).sum();
    out.append(String.format("failed operations: %d %s%n", failed, failures));
    failureSamples.forEach(s -> out.append("  e.g. ").append(s).append('\n'));
    out.append(String.format("EC2 calls per volume (all %d, throttled %d, other errors %d):%n", stats.totalCalls(),
        stats.totalThrottled(), stats.totalErrors()));
    Map<String, ActionStats> ec2 = new TreeMap<>(stats.services().getOrDefault("ec2", Map.of()));
    long describes = 0;
    for (Map.Entry<String, ActionStats> e : ec2.entrySet()) {
      ActionStats a = e.getValue();
      out.append(String.format("  %-30s %7.2f  (calls %d, throttled %d, errors %d %s)%n", e.getKey(),
          a.calls() / (double) n, a.calls(), a.throttled(), a.errors(), a.errorCodes()));
      if (e.getKey().startsWith("Describe")) {
        describes += a.calls();
      }
    }
    out.append(String.format("Describe calls per volume per lifecycle: %.2f (goal <= 1)%n", describes / (double) n));
    List<Long> attach = new ArrayList<>(latencies.get("ControllerPublishVolume"));
    Collections.sort(attach);
    double emulatedP99 = profile.volumeAttach().p99().toMillis() / 1000.0;
    out.append(String.format("p99 attach / emulated attach p99: %.2f / %.2f s = %.2f (goal <= 1.5)%n",
        pct(attach, 99), emulatedP99, pct(attach, 99) / emulatedP99));
    System.out.print(out);
  }

  /** Mean EC2 round trip per action as the driver saw it, from the duration histogram's sum and count. */
  private static String meanApiLatencies(String scrape) {
    Map<String, double[]> byRequest = new TreeMap<>();
    for (String line : scrape.split("\n")) {
      for (String part : List.of("_sum", "_count")) {
        String prefix = "aws_ebs_csi_api_request_duration_seconds" + part + "{request=\"";
        if (line.startsWith(prefix)) {
          String request = line.substring(prefix.length(), line.indexOf('"', prefix.length()));
          double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
          byRequest.computeIfAbsent(request, k -> new double[2])[part.equals("_sum") ? 0 : 1] = value;
        }
      }
    }
    StringBuilder out = new StringBuilder("mean EC2 round trip seen by the driver:");
    byRequest.forEach((request, v) -> out.append(String.format(" %s %.0f ms;", request, 1000 * v[0] / v[1])));
    return out.append('\n').toString();
  }

  private static double pct(List<Long> sorted, int percentile) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int rank = (int) Math.ceil(percentile / 100.0 * sorted.size());
    return sorted.get(Math.max(0, rank - 1)) / 1e9;
  }
}
