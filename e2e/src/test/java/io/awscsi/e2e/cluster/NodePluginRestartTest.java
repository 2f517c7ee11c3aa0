package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Restarting the EBS node plugin under a running pod that appends a line a second: the pod's mount is the kernel's,
 * not the plugin's, so the pod keeps writing through the restart with no gap and no container restart, and the
 * data is still there for the next pod (a plugin restart must never lose a volume's content).
 */
class NodePluginRestartTest extends ClusterCase {

  private static final String WRITER = "i=0; while true; do echo $i >> " + ClusterFixture.MOUNT
      + "/log; sync; i=$((i+1)); sleep 1; done";

  @Test
  void podKeepsWritingWhileTheNodePluginRestartsAndNoWriteIsLost() {
    Steps steps = new Steps("node plugin restart");
    String node = steps.step("writer pod appending a line a second", () -> {
      cluster.createPvc("data", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
      cluster.startPod("writer", "data", WRITER, null);
      Eventually.await("a few lines written", Duration.ofSeconds(30), () -> lines() >= 3);
      return cluster.nodeOf("writer");
    });
    steps.step("node plugin on " + node + " restarted", () -> cluster.driver().restartNodePlugin(node));
    long afterRestart = lines();
    steps.step("the writer keeps appending", () -> Eventually.await("5 more lines", Duration.ofSeconds(30),
        () -> lines() >= afterRestart + 5));
    steps.step("the writer was not restarted", () -> {
      assertThat(cluster.restarts("writer")).isZero();
    });
    List<String> log = steps.step("its log has no gap", () -> {
      List<String> l = cluster.exec("writer", "cat " + ClusterFixture.MOUNT + "/log").lines().toList();
      assertConsecutive(l);
      return l;
    });
    steps.step("writer deleted; the next pod reads every line (the data survived the restart)", () -> {
      cluster.deletePod("writer");
      cluster.createPod("reader", "data", "sleep 86400", null);
      // A staged volume takes seconds; a volume whose device is gone never stages (bounded, not POD_READY's 5 min).
      cluster.awaitReady("reader", Duration.ofMinutes(2));
      List<String> read = cluster.exec("reader", "cat " + ClusterFixture.MOUNT + "/log").lines().toList();
      assertThat(read.size()).as("lines after the restart and a remount").isGreaterThanOrEqualTo(log.size());
      assertConsecutive(read);
      return read.size() + " lines";
    });
    steps.summary();
  }

  private static void assertConsecutive(List<String> log) {
    assertThat(log).as("the writer's log").isNotEmpty();
    for (int i = 0; i < log.size(); i++) {
      assertThat(log.get(i)).as("line %d of the writer's log", i).isEqualTo(Integer.toString(i));
    }
  }

  private long lines() {
    return Long.parseLong(cluster.exec("writer", "wc -l < " + ClusterFixture.MOUNT + "/log").trim());
  }
}
