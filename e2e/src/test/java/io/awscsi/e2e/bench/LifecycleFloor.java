package io.awscsi.e2e.bench;

import io.awscsi.realism.BucketLimit;
import io.awscsi.realism.Latency;
import io.awscsi.realism.RealismProfile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;

/**
 * The fastest N create/attach/detach/delete lifecycles can finish on the realism layer's settings: a simulated ideal
 * controller that sends every call the moment the previous step's state change happened (it sees changes as they
 * happen), is admitted at its action's EC2 token bucket at the earliest token in arrival order, never throttled and
 * never slowed by its own CPU. What remains is EC2 as the realism layer emulates it: the four mutating actions'
 * buckets (burst, refill), the API round trip in front of every call, and the creation, attach and detach latencies,
 * each drawn as the layer draws them. The floor is the mean over many simulated runs; no driver can beat it on
 * average, since each of its lifecycles pays the same draws and the same tokens.
 *
 * <p>With a fault mix the ideal also pays what the faults cost: a 5xx answer takes its token and one more round
 * trip, a neighbour's burst takes tokens from the buckets, and a slowed attach lasts as long as it is held.
 */
final class LifecycleFloor {

  static final List<String> ACTIONS = List.of("CreateVolume", "AttachVolume", "DetachVolume", "DeleteVolume");

  /**
   * What a fault mix costs an ideal controller.
   *
   * @param serverErrorRate share of mutating calls answered 5xx (after taking a token)
   * @param burstEverySeconds a neighbour takes {@code burstTokens} of each mutating bucket this often (0: never)
   * @param burstTokens tokens the neighbour takes per burst and action
   * @param slowAttachRate share of attaches held in attaching
   * @param slowAttach how long a held attach takes, in seconds, from the attach
   */
  record Faults(double serverErrorRate, double burstEverySeconds, int burstTokens, double slowAttachRate,
      DoubleUnaryOperator slowAttach) {

    static final Faults NONE = new Faults(0, 0, 0, 0, u -> 0);
  }

  /** The floor and what it is made of, for the printed derivation. */
  record Result(double meanSeconds, double p5Seconds, double p95Seconds, int trials, double bucketBoundSeconds,
      double medianLifecycleSeconds, int peakAttachmentsPerNode, List<String> bucketLines) {}

  private LifecycleFloor() {}

  static Result simulate(RealismProfile profile, int n, int nodes, Faults faults, int trials, long seed) {
    Random random = new Random(seed);
    double[] walls = new double[trials];
    int peakPerNode = 0;
    for (int t = 0; t < trials; t++) {
      Run run = new Run(profile, n, nodes, faults, random);
      walls[t] = run.wall;
      peakPerNode = Math.max(peakPerNode, run.peakPerNode);
    }
    Arrays.sort(walls);
    double mean = Arrays.stream(walls).average().orElse(0);
    List<String> lines = new ArrayList<>();
    double bound = 0;
    for (String action : ACTIONS) {
      BucketLimit b = profile.throttle().limitFor(action);
      double seconds = Math.max(0, n - b.capacity()) / b.refillPerSecond();
      bound = Math.max(bound, seconds);
      lines.add(String.format("%s bucket %d + %.0f/s: call %d admitted >= %.1f s after call 1", action,
          b.capacity(), b.refillPerSecond(), n, seconds));
    }
    double lifecycle = 4 * seconds(profile.apiCall().median().toNanos())
        + seconds(profile.volumeCreation().median().toNanos()) + seconds(profile.volumeAttach().median().toNanos())
        + seconds(profile.volumeDetach().median().toNanos());
    return new Result(mean, walls[(int) (0.05 * (trials - 1))], walls[(int) (0.95 * (trials - 1))], trials, bound,
        lifecycle, peakPerNode, lines);
  }

  /**
   * EFS access-point volumes: one listing of {@code pages} DescribeAccessPoints pages before the first
   * CreateAccessPoint (an ideal controller lists once and then knows every id it hands out), then each volume's
   * CreateAccessPoint and DeleteAccessPoint, each admitted at its EFS bucket in arrival order.
   */
  static Result simulateEfs(RealismProfile profile, int n, int pages, int trials, long seed) {
    Random random = new Random(seed);
    BucketLimit create = profile.efsThrottle().limitFor("CreateAccessPoint");
    BucketLimit delete = profile.efsThrottle().limitFor("DeleteAccessPoint");
    double[] walls = new double[trials];
    for (int t = 0; t < trials; t++) {
      double listed = 0;
      for (int p = 0; p < pages; p++) {
        listed += Run.draw(profile.apiCall(), random);
      }
      double[] ready = new double[n];
      Arrays.fill(ready, listed);
      double[] created = Run.stage(ready, create, profile.apiCall(), Faults.NONE, random);
      double[] deleted = Run.stage(created, delete, profile.apiCall(), Faults.NONE, random);
      walls[t] = Arrays.stream(deleted).max().orElse(0);
    }
    Arrays.sort(walls);
    List<String> lines = new ArrayList<>();
    double bound = 0;
    for (var e : List.of(java.util.Map.entry("CreateAccessPoint", create), java.util.Map.entry("DeleteAccessPoint",
        delete))) {
      double seconds = Math.max(0, n - e.getValue().capacity()) / e.getValue().refillPerSecond();
      bound = Math.max(bound, seconds);
      lines.add(String.format("%s bucket %d + %.0f/s: call %d admitted >= %.1f s after call 1", e.getKey(),
          e.getValue().capacity(), e.getValue().refillPerSecond(), n, seconds));
    }
    return new Result(Arrays.stream(walls).average().orElse(0), walls[(int) (0.05 * (trials - 1))],
        walls[(int) (0.95 * (trials - 1))], trials, bound, (pages + 2) * seconds(profile.apiCall().median().toNanos()),
        0, lines);
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  /** One simulated run: each stage's arrivals, admitted in arrival order at its bucket. */
  private static final class Run {
    final double wall;
    final int peakPerNode;

    Run(RealismProfile profile, int n, int nodes, Faults faults, Random random) {
      Latency api = profile.apiCall();
      double[] ready = new double[n];
      double[] attachStart = new double[n];
      double[] detachDone = new double[n];
      // Stage 1: every CreateVolume sent at 0.
      double[] admitted = stage(ready, profile.throttle().limitFor("CreateVolume"), api, faults, random);
      for (int i = 0; i < n; i++) {
        ready[i] = admitted[i] + draw(profile.volumeCreation(), random);
      }
      admitted = stage(ready, profile.throttle().limitFor("AttachVolume"), api, faults, random);
      for (int i = 0; i < n; i++) {
        attachStart[i] = admitted[i];
        double attach = draw(profile.volumeAttach(), random);
        if (faults.slowAttachRate() > 0 && random.nextDouble() < faults.slowAttachRate()) {
          attach = Math.max(attach, faults.slowAttach().applyAsDouble(random.nextDouble()));
        }
        ready[i] = admitted[i] + attach;
      }
      admitted = stage(ready, profile.throttle().limitFor("DetachVolume"), api, faults, random);
      for (int i = 0; i < n; i++) {
        ready[i] = admitted[i] + draw(profile.volumeDetach(), random);
        detachDone[i] = ready[i];
      }
      admitted = stage(ready, profile.throttle().limitFor("DeleteVolume"), api, faults, random);
      wall = Arrays.stream(admitted).max().orElse(0);
      peakPerNode = peak(attachStart, detachDone, nodes);
    }

    /** Calls ready at {@code ready[i]} reach the bucket one round trip later and are admitted in that order. */
    static double[] stage(double[] ready, BucketLimit bucket, Latency api, Faults faults, Random random) {
      int n = ready.length;
      double[] arrival = new double[n];
      Integer[] order = new Integer[n];
      for (int i = 0; i < n; i++) {
        arrival[i] = ready[i] + draw(api, random);
        order[i] = i;
      }
      Arrays.sort(order, (a, b) -> Double.compare(arrival[a], arrival[b]));
      double[] admitted = new double[n];
      double tokens = bucket.capacity();
      double at = 0;
      double nextBurst = faults.burstEverySeconds() > 0 ? faults.burstEverySeconds() : Double.MAX_VALUE;
      for (int k = 0; k < n; k++) {
        int i = order[k];
        double time = Math.max(arrival[i], at);
        while (true) {
          // A neighbour's burst before this call takes its tokens first (beyond them, EC2 throttles the neighbour).
          while (nextBurst <= time) {
            tokens = Math.min(bucket.capacity(), tokens + (nextBurst - at) * bucket.refillPerSecond());
            at = nextBurst;
            tokens = Math.max(0, tokens - faults.burstTokens());
            nextBurst += faults.burstEverySeconds();
          }
          tokens = Math.min(bucket.capacity(), tokens + (time - at) * bucket.refillPerSecond());
          at = time;
          if (tokens < 1) {
            double tokenAt = time + (1 - tokens) / bucket.refillPerSecond();
            if (nextBurst <= tokenAt) {
              time = nextBurst;
              continue;
            }
            time = tokenAt;
            at = tokenAt;
            tokens = 1;
          }
          tokens -= 1;
          if (faults.serverErrorRate() > 0 && random.nextDouble() < faults.serverErrorRate()) {
            // The 5xx took the token; the repeat goes one round trip later.
            time += draw(api, random);
            continue;
          }
          break;
        }
        admitted[i] = time;
      }
      return admitted;
    }

    private static int peak(double[] start, double[] end, int nodes) {
      int peak = 0;
      for (int node = 0; node < nodes; node++) {
        List<double[]> events = new ArrayList<>();
        for (int i = node; i < start.length; i += nodes) {
          events.add(new double[] {start[i], 1});
          events.add(new double[] {end[i], -1});
        }
        events.sort((a, b) -> a[0] != b[0] ? Double.compare(a[0], b[0]) : Double.compare(a[1], b[1]));
        int current = 0;
        for (double[] e : events) {
          current += (int) e[1];
          peak = Math.max(peak, current);
        }
      }
      return peak;
    }

    static double draw(Latency latency, Random random) {
      return latency.sample(random).toNanos() / 1e9;
    }
  }
}
