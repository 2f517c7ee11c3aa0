package io.awscsi.launcher;

import java.time.Duration;
import java.util.Set;
import java.util.function.DoubleSupplier;

/**
 * Gives memory back after work: one full collection once the start has settled, and one after every busy spell, as
 * soon as no CSI call has been served for {@link #QUIET}. SerialGC shrinks the heap only at a full collection (to
 * what the launcher's heap-free ratios allow), and glibc's periodic trim then returns the freed pages, so a controller
 * that provisioned thousands of volumes goes back to about its idle size instead of keeping the heap the load grew.
 * The collection runs while nothing is being served, so no call waits for it.
 */
final class HeapCompaction {

  /** How long without a call counts as the end of a busy spell. */
  static final Duration QUIET = Duration.ofSeconds(30);
  /** How often the call count is looked at. */
  static final Duration TICK = Duration.ofSeconds(5);
  /**
   * Calls that come all the time whatever the load (probes, the sidecars' and kubelet's periodic questions): they do
   * not make a spell busy, or a controller under a liveness probe would never count as quiet.
   */
  private static final Set<String> PERIODIC = Set.of("Probe", "GetPluginInfo", "GetPluginCapabilities",
      "ControllerGetCapabilities", "NodeGetCapabilities", "NodeGetInfo", "NodeGetVolumeStats", "ListVolumes",
      "ControllerGetVolume");

  /** Whether a call of this CSI method is work that can grow the heap (not a periodic question). */
  static boolean isWork(String method) {
    return !PERIODIC.contains(method);
  }

  private final DoubleSupplier callsServed;
  private double lastCount;
  private long lastChangeNanos;
  private boolean busy;

  HeapCompaction(DoubleSupplier callsServed, long nowNanos) {
    this.callsServed = callsServed;
    this.lastCount = callsServed.getAsDouble();
    this.lastChangeNanos = nowNanos;
  }

  /** Whether to collect now: calls were served since the last collection and none for {@link #QUIET}. */
  boolean tick(long nowNanos) {
    double count = callsServed.getAsDouble();
    if (count != lastCount) {
      lastCount = count;
      lastChangeNanos = nowNanos;
      busy = true;
      return false;
    }
    if (busy && nowNanos - lastChangeNanos >= QUIET.toNanos()) {
      busy = false;
      return true;
    }
    return false;
  }

  /** Collects once after {@code settle}, then after every busy spell, on a virtual thread of its own. */
  static void start(Duration settle, DoubleSupplier callsServed) {
    Thread.ofVirtual().name("heap-compaction").start(() -> {
      try {
        Thread.sleep(settle.toMillis());
        System.gc();
        HeapCompaction compaction = new HeapCompaction(callsServed, System.nanoTime());
        while (true) {
          Thread.sleep(TICK.toMillis());
          if (compaction.tick(System.nanoTime())) {
            System.gc();
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }
}
