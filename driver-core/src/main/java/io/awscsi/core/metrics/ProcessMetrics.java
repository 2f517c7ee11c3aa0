package io.awscsi.core.metrics;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** JVM and process basics for /metrics: memory, threads, CPU, open file descriptors. */
public final class ProcessMetrics {

  private static final long PAGE_SIZE = 4096;

  private ProcessMetrics() {}

  public static void register(MetricsRegistry registry) {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    var threads = ManagementFactory.getThreadMXBean();
    long startMillis = ManagementFactory.getRuntimeMXBean().getStartTime();
    registry.gauge("process_resident_memory_bytes", "Resident set size in bytes.", ProcessMetrics::residentBytes);
    registry.gauge("process_cpu_seconds_total", "User and system CPU time in seconds.",
        () -> os.getProcessCpuTime() / 1e9);
    registry.gauge("process_start_time_seconds", "Start time since the epoch in seconds.", () -> startMillis / 1e3);
    registry.gauge("process_open_fds", "Open file descriptors.", ProcessMetrics::openFds);
    registry.gauge("jvm_memory_heap_used_bytes", "Used heap in bytes.", () -> memory.getHeapMemoryUsage().getUsed());
    registry.gauge("jvm_memory_heap_committed_bytes", "Committed heap in bytes.",
        () -> memory.getHeapMemoryUsage().getCommitted());
    registry.gauge("jvm_memory_nonheap_used_bytes", "Used non-heap memory in bytes.",
        () -> memory.getNonHeapMemoryUsage().getUsed());
    registry.gauge("jvm_threads_live", "Live platform threads.", threads::getThreadCount);
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
}
