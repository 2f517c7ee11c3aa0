package io.awscsi.core.metrics;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** JVM and process basics for /metrics: memory, threads, CPU, open file descriptors. */
public final class ProcessMetrics {

  private static final long PAGE_SIZE = 4096;

  private ProcessMetrics() {}

  /**
   * Registers the gauges; the JVM's MXBeans behind them are looked up on the first scrape ({@link JvmBeans}), since
   * {@link ManagementFactory} loads some 55 classes of java.management that a node nobody scrapes never needs.
   */
  public static void register(MetricsRegistry registry) {
    registry.gauge("process_resident_memory_bytes", "Resident set size in bytes.", ProcessMetrics::residentBytes);
    registry.gauge("process_cpu_seconds_total", "User and system CPU time in seconds.",
        () -> JvmBeans.OPERATING_SYSTEM.getProcessCpuTime() / 1e9);
    registry.gauge("process_start_time_seconds", "Start time since the epoch in seconds.",
        () -> JvmBeans.START_MILLIS / 1e3);
    registry.gauge("process_open_fds", "Open file descriptors.", ProcessMetrics::openFds);
    registry.gauge("jvm_memory_heap_used_bytes", "Used heap in bytes.",
        () -> JvmBeans.MEMORY.getHeapMemoryUsage().getUsed());
    registry.gauge("jvm_memory_heap_committed_bytes", "Committed heap in bytes.",
        () -> JvmBeans.MEMORY.getHeapMemoryUsage().getCommitted());
    registry.gauge("jvm_memory_nonheap_used_bytes", "Used non-heap memory in bytes.",
        () -> JvmBeans.MEMORY.getNonHeapMemoryUsage().getUsed());
    registry.gauge("jvm_threads_live", "Live platform threads.", () -> JvmBeans.THREADS.getThreadCount());
  }

  /** RSS from /proc/self/statm (second field, in pages); 0 where /proc is not available. */
  public static double residentBytes() {
    try {
      String[] fields = Files.readString(Path.of("/proc/self/statm")).trim().split("\\s+");
      return Long.parseLong(fields[1]) * PAGE_SIZE;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static double openFds() {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * The MXBeans, resolved when a gauge first reads this class (the JVM initialises a class on first use, once and
   * thread-safely), so that registering the gauges costs nothing until /metrics is scraped.
   */
  private static final class JvmBeans {
    static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
    static final com.sun.management.OperatingSystemMXBean OPERATING_SYSTEM =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    static final long START_MILLIS = ManagementFactory.getRuntimeMXBean().getStartTime();

    private JvmBeans() {}
  }
}
