package io.awscsi.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessMetricsTest {

  @Test
  void theGaugesReportThisJvmOnceTheBeansAreResolved() {
    MetricsRegistry registry = new MetricsRegistry();
    ProcessMetrics.register(registry);

    Map<String, Double> values = values(registry.scrape());

    assertThat(values.get("jvm_memory_heap_used_bytes")).isPositive();
    assertThat(values.get("jvm_memory_heap_committed_bytes")).isGreaterThanOrEqualTo(
        values.get("jvm_memory_heap_used_bytes"));
    assertThat(values.get("jvm_memory_nonheap_used_bytes")).isPositive();
    assertThat(values.get("jvm_threads_live")).isPositive();
    assertThat(values.get("process_cpu_seconds_total")).isPositive();
    assertThat(values.get("process_start_time_seconds"))
        .isPositive()
        .isLessThanOrEqualTo(System.currentTimeMillis() / 1e3);
    assertThat(values.get("process_open_fds")).isPositive();
    assertThat(values.get("process_resident_memory_bytes")).isPositive();
    // A second scrape reads the same, already resolved beans.
    assertThat(values(registry.scrape()).get("process_start_time_seconds"))
        .isEqualTo(values.get("process_start_time_seconds"));
  }

  /** Registering must not load java.management; the first scrape does. A fresh JVM, since this one may have it. */
  @Test
  void registeringLeavesJavaManagementUnloadedUntilTheFirstScrape(@TempDir Path dir) throws Exception {
    Path classLog = dir.resolve("class-load.log");
    Path output = dir.resolve("probe.out");
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-Xlog:class+load=info:file=" + classLog,
                "-cp",
                System.getProperty("java.class.path"),
                ProcessMetricsProbe.class.getName())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    boolean exited = process.waitFor(60, TimeUnit.SECONDS);
    if (!exited) {
      process.destroyForcibly().waitFor();
    }
    String out = Files.readString(output);
    assertThat(exited).as("probe finished: %s", out).isTrue();
    assertThat(process.exitValue()).as(out).isZero();
    assertThat(values(out).get("jvm_threads_live")).isPositive();

    List<String> loaded = Files.readAllLines(classLog);
    int registered = indexOf(loaded, " " + ProcessMetricsProbe.Registered.class.getName() + " ");
    assertThat(registered).as("the probe's marker class is in the log").isNotNegative();
    assertThat(loaded.subList(0, registered)).noneMatch(ProcessMetricsTest::isJavaManagement);
    assertThat(loaded.subList(registered, loaded.size())).anyMatch(ProcessMetricsTest::isJavaManagement);
  }

  private static boolean isJavaManagement(String classLoadLine) {
    return classLoadLine.contains(" java.lang.management.") || classLoadLine.contains(" sun.management.");
  }

  private static int indexOf(List<String> lines, String part) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(part)) {
        return i;
      }
    }
    return -1;
  }

  /** Sample lines without labels, name to value. */
  private static Map<String, Double> values(String scrape) {
    return scrape
        .lines()
        .filter(line -> !line.startsWith("#") && !line.isBlank() && !line.contains("{"))
        .map(line -> line.split(" "))
        .filter(parts -> parts.length == 2)
        .collect(Collectors.toMap(parts -> parts[0], parts -> Double.parseDouble(parts[1]), (a, b) -> a));
  }
}
