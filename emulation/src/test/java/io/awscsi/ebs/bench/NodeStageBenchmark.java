package io.awscsi.ebs.bench;

import io.awscsi.core.host.CommandRunner;
import io.awscsi.ebs.node.LocalEbsNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;

/**
 * Driver time of NodeStageVolume + NodePublishVolume for a volume whose file system already exists (the common
 * case: a pod restarts or moves back), on real loop devices through the local backend. Each round times stage and
 * publish of every volume; unpublish and unstage between rounds are not timed. The first round formats the volumes
 * and is reported separately.
 *
 * <p>Run as root: {@code java -cp <test classpath> io.awscsi.ebs.bench.NodeStageBenchmark [volumes] [rounds]
 * [fsType]} (defaults 4, 20, ext4). Prints figures; asserts nothing.
 */
public final class NodeStageBenchmark {

  private static final long SIZE = 320L * 1024 * 1024;

  private NodeStageBenchmark() {}

  public static void main(String[] args) {
    int volumes = args.length > 0 ? Integer.parseInt(args[0]) : 4;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    var fsType = args.length > 2 ? args[2] : "ext4";
    var capability = LocalEbsNode.fileSystem(fsType);
    var toolTime = new ConcurrentHashMap<String, LongAdder>();
    var toolCalls = new ConcurrentHashMap<String, LongAdder>();
    var timing = new AtomicBoolean();
    UnaryOperator<CommandRunner> timed = runner -> command -> {
      long start = System.nanoTime();
      try {
        return runner.run(command);
      } finally {
        if (timing.get()) {
          toolTime.computeIfAbsent(command.tool().executable(), tool -> new LongAdder()).add(System.nanoTime() - start);
          toolCalls.computeIfAbsent(command.tool().executable(), tool -> new LongAdder()).increment();
        }
      }
    };
    try (var node = new LocalEbsNode(false, timed)) {
      var ids = new ArrayList<String>();
      var contexts = new ArrayList<Map<String, String>>();
      for (int i = 0; i < volumes; i++) {
        var id = LocalEbsNode.newVolumeId();
        ids.add(id);
        contexts.add(node.attach(id, SIZE));
      }
      var firstStage = new long[volumes];
      var stage = new ArrayList<Long>();
      var publish = new ArrayList<Long>();
      for (int round = 0; round <= rounds; round++) {
        timing.set(round > 0);
        for (int i = 0; i < volumes; i++) {
          long start = System.nanoTime();
          node.stage(ids.get(i), contexts.get(i), capability, Map.of());
          long staged = System.nanoTime();
          node.publish(ids.get(i), contexts.get(i), capability, "bench-pod", false);
          long published = System.nanoTime();
          if (round == 0) {
            firstStage[i] = staged - start;
          } else {
            stage.add(staged - start);
            publish.add(published - staged);
          }
        }
        timing.set(false);
        for (int i = 0; i < volumes; i++) {
          node.unpublish(ids.get(i), "bench-pod");
          node.unstage(ids.get(i));
        }
      }
      var total = new ArrayList<Long>();
      for (int i = 0; i < stage.size(); i++) {
        total.add(stage.get(i) + publish.get(i));
      }
      System.out.printf("NodeStage+NodePublish, %s, file system already made: %d volumes x %d rounds%n", fsType,
          volumes, rounds);
      print("stage", stage);
      print("publish", publish);
      print("stage+publish", total);
      print("first stage (mkfs)", Arrays.stream(firstStage).boxed().toList());
      long measured = total.size();
      System.out.printf("  host tools per stage+publish (timed rounds):%n");
      toolTime.forEach((tool, nanos) -> System.out.printf("    %-12s %5.2f calls  %7.2f ms%n", tool,
          toolCalls.get(tool).sum() / (double) measured, nanos.sum() / 1e6 / measured));
      double toolsTotal = toolTime.values().stream().mapToLong(LongAdder::sum).sum() / 1e6 / measured;
      double mean = total.stream().mapToLong(Long::longValue).average().orElse(0) / 1e6;
      System.out.printf("    in tools %7.2f ms of %7.2f ms; the rest (Java, sysfs, mountinfo) %7.2f ms%n", toolsTotal,
          mean, mean - toolsTotal);
    }
  }

  private static void print(String name, List<Long> nanos) {
    var sorted = nanos.stream().sorted().toList();
    System.out.printf("  %-20s n=%-4d mean %7.2f ms  p50 %7.2f ms  p95 %7.2f ms  max %7.2f ms%n", name, sorted.size(),
        sorted.stream().mapToLong(Long::longValue).average().orElse(0) / 1e6, percentile(sorted, 0.50),
        percentile(sorted, 0.95), sorted.getLast() / 1e6);
  }

  private static double percentile(List<Long> sorted, double fraction) {
    int index = (int) Math.ceil(fraction * sorted.size()) - 1;
    return sorted.get(Math.max(0, index)) / 1e6;
  }
}
