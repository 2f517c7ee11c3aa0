package io.awscsi.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class MetricsRegistryTest {

  private final MetricsRegistry registry = new MetricsRegistry();

  @Test
  void countersRenderHelpTypeAndOneLinePerLabelSet() {
    MetricsRegistry.Counter calls = registry.counter("csi_operations_total", "CSI calls", "method", "grpc_code");
    calls.inc("CreateVolume", "OK");
    calls.inc("CreateVolume", "OK");
    calls.add(3, "DeleteVolume", "ABORTED");

    List<String> lines = registry.scrape().lines().toList();

    assertThat(lines).startsWith("# HELP csi_operations_total CSI calls", "# TYPE csi_operations_total counter");
    assertThat(lines).contains(
        "csi_operations_total{method=\"CreateVolume\",grpc_code=\"OK\"} 2",
        "csi_operations_total{method=\"DeleteVolume\",grpc_code=\"ABORTED\"} 3");
    assertThat(lines).hasSize(4);
    assertThat(calls.value("CreateVolume", "OK")).isEqualTo(2);
    assertThat(calls.value("CreateVolume", "INTERNAL")).isZero();
    assertThat(calls.sum(labels -> true)).isEqualTo(5);
    assertThat(calls.sum(labels -> labels.getFirst().equals("DeleteVolume"))).isEqualTo(3);
  }

  @Test
  void histogramsHaveCumulativeBucketsInfSumAndCount() {
    MetricsRegistry.Histogram latency = registry.histogram("op_seconds", "latency", new double[] {0.25, 1, 2.5},
        "method");
    latency.observe(0.25, "Probe"); // on a bound: counted in that bucket
    latency.observe(0.5, "Probe");
    latency.observe(4, "Probe"); // above every bound: only +Inf

    assertThat(registry.scrape()).isEqualTo("""
        # HELP op_seconds latency
        # TYPE op_seconds histogram
        op_seconds_bucket{method="Probe",le="0.25"} 1
        op_seconds_bucket{method="Probe",le="1"} 2
        op_seconds_bucket{method="Probe",le="2.5"} 2
        op_seconds_bucket{method="Probe",le="+Inf"} 3
        op_seconds_sum{method="Probe"} 4.75
        op_seconds_count{method="Probe"} 3
        """);
    assertThat(latency.count("Probe")).isEqualTo(3);
  }

  @Test
  void labelValuesAreEscaped() {
    registry.counter("errors_total", "errors", "reason").inc("quote \" backslash \\ newline \n end");

    assertThat(registry.scrape())
        .contains("errors_total{reason=\"quote \\\" backslash \\\\ newline \\n end\"} 1\n");
  }

  @Test
  void computedCountersAreReadAtScrapeTimeWithTheirLabels() {
    java.util.Map<List<String>, Double> values = new java.util.LinkedHashMap<>();
    registry.computedCounter("pending_seconds_total", "pending", () -> java.util.Map.copyOf(values), "volume", "state");

    assertThat(registry.scrape()).contains("# TYPE pending_seconds_total counter\n")
        .doesNotContain("pending_seconds_total{");
    values.put(List.of("vol-1", "detaching"), 61.0);
    assertThat(registry.scrape()).contains("pending_seconds_total{volume=\"vol-1\",state=\"detaching\"} 61\n");
    values.clear();
    assertThat(registry.scrape()).doesNotContain("vol-1");
  }

  @Test
  void gaugesAreReadAtScrapeTimeAndFamiliesAreSortedByName() {
    double[] value = {1.5};
    registry.gauge("zz_gauge", "a gauge", () -> value[0]);
    registry.counter("aa_total", "a counter").inc();

    String first = registry.scrape();
    value[0] = 7;
    String second = registry.scrape();

    assertThat(first).contains("zz_gauge 1.5\n");
    assertThat(second).contains("zz_gauge 7\n");
    assertThat(second.indexOf("aa_total")).isLessThan(second.indexOf("zz_gauge"));
    assertThat(second).contains("aa_total 1\n");
  }

  @Test
  void theSameNameGivesTheSameFamily() {
    MetricsRegistry.Counter a = registry.counter("c_total", "c", "l");
    MetricsRegistry.Counter b = registry.counter("c_total", "c", "l");
    a.inc("x");
    b.inc("x");

    assertThat(a).isSameAs(b);
    assertThat(a.value("x")).isEqualTo(2);
  }

  @Test
  void aWrongNumberOfLabelValuesIsABug() {
    MetricsRegistry.Counter c = registry.counter("c_total", "c", "method", "grpc_code");

    assertThatThrownBy(() -> c.inc("CreateVolume"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("c_total takes labels [method, grpc_code]");
  }

  @Test
  void processMetricsReportThisProcess() {
    ProcessMetrics.register(registry);

    String scrape = registry.scrape();

    assertThat(scrape).contains("# TYPE process_resident_memory_bytes gauge", "# TYPE jvm_threads_live gauge",
        "process_open_fds ");
    assertThat(ProcessMetrics.residentBytes()).isPositive();
  }
}
