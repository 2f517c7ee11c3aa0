package io.awscsi.core.metrics;

/**
 * Run in a child JVM by {@link ProcessMetricsTest}: registers the process gauges, marks that point in the class-load
 * log by loading {@link Registered}, then scrapes once.
 */
public final class ProcessMetricsProbe {

  private ProcessMetricsProbe() {}

  /** Loaded only to mark "registered, not yet scraped" in the class-load log. */
  static final class Registered {}

  public static void main(String[] args) {
    MetricsRegistry registry = new MetricsRegistry();
    ProcessMetrics.register(registry);
    new Registered();
    System.out.println(registry.scrape());
  }
}
