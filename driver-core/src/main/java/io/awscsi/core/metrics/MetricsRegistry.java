package io.awscsi.core.metrics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * A small Prometheus registry: labelled counters, histograms and gauges, rendered in the text exposition format.
 * Hand-written to keep the node plugin's footprint small; it has no global state, so tests make their own.
 */
public final class MetricsRegistry {

  /** Buckets for call latencies in seconds: 5 ms to 5 min. */
  public static final double[] LATENCY_BUCKETS =
      {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};

  private final Map<String, Family> families = new ConcurrentSkipListMap<>();

  public Counter counter(String name, String help, String... labelNames) {
    return (Counter) families.computeIfAbsent(name, n -> new Counter(n, help, labelNames));
  }

  public Histogram histogram(String name, String help, double[] buckets, String... labelNames) {
    return (Histogram) families.computeIfAbsent(name, n -> new Histogram(n, help, buckets, labelNames));
  }

  public void gauge(String name, String help, DoubleSupplier value) {
    families.put(name, new Gauge(name, help, value));
  }

  /**
   * A counter whose labelled values are computed at each scrape ({@code values}: label values in label order ->
   * value), for a value that is a function of time, such as how long something has been pending.
   */
  public void computedCounter(String name, String help, Supplier<Map<List<String>, Double>> values,
      String... labelNames) {
    families.put(name, new ComputedCounter(name, help, labelNames, values));
  }

  /** The whole registry in Prometheus text format 0.0.4. */
  public String scrape() {
    StringBuilder out = new StringBuilder(4096);
    for (Family f : families.values()) {
      out.append("# HELP ").append(f.name).append(' ').append(f.help).append('\n');
      out.append("# TYPE ").append(f.name).append(' ').append(f.type()).append('\n');
      f.render(out);
    }
    return out.toString();
  }

  private abstract static sealed class Family permits Counter, Histogram, Gauge, ComputedCounter {
    final String name;
    final String help;
    final String[] labelNames;

    Family(String name, String help, String[] labelNames) {
      this.name = name;
      this.help = help;
      this.labelNames = labelNames.clone();
    }

    abstract String type();

    abstract void render(StringBuilder out);

    List<String> key(String[] values) {
      if (values.length != labelNames.length) {
        throw new IllegalArgumentException(name + " takes labels " + Arrays.toString(labelNames));
      }
      return List.of(values);
    }

    String labels(List<String> values, String extraName, String extraValue) {
      List<String> parts = new ArrayList<>();
      for (int i = 0; i < labelNames.length; i++) {
        parts.add(labelNames[i] + "=\"" + escape(values.get(i)) + "\"");
      }
      if (extraName != null) {
        parts.add(extraName + "=\"" + extraValue + "\"");
      }
      return parts.isEmpty() ? "" : "{" + String.join(",", parts) + "}";
    }

    private static String escape(String v) {
      return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
  }

  /** A monotonically increasing count per label set. */
  public static final class Counter extends Family {
    private final Map<List<String>, DoubleAdder> values = new ConcurrentHashMap<>();

    Counter(String name, String help, String[] labelNames) {
      super(name, help, labelNames);
    }

    public void inc(String... labelValues) {
      add(1, labelValues);
    }

    public void add(double amount, String... labelValues) {
      values.computeIfAbsent(key(labelValues), k -> new DoubleAdder()).add(amount);
    }

    public double value(String... labelValues) {
      DoubleAdder a = values.get(key(labelValues));
      return a == null ? 0 : a.sum();
    }

    /** The sum over the label sets (their values, in label order) that {@code which} accepts. */
    public double sum(java.util.function.Predicate<List<String>> which) {
      return values.entrySet().stream().filter(e -> which.test(e.getKey()))
          .mapToDouble(e -> e.getValue().sum()).sum();
    }

    @Override
    String type() {
      return "counter";
    }

    @Override
    void render(StringBuilder out) {
      values.forEach((k, v) -> out.append(name).append(labels(k, null, null)).append(' ').append(format(v.sum()))
          .append('\n'));
    }
  }

  /** Observations in cumulative buckets, with sum and count, per label set. */
  public static final class Histogram extends Family {
    private final double[] bounds;
    private final Map<List<String>, Series> series = new ConcurrentHashMap<>();

    private record Series(LongAdder[] buckets, DoubleAdder sum, LongAdder count) {}

    Histogram(String name, String help, double[] bounds, String[] labelNames) {
      super(name, help, labelNames);
      this.bounds = bounds.clone();
    }

    public void observe(double value, String... labelValues) {
      Series s = series.computeIfAbsent(key(labelValues), k -> {
        LongAdder[] b = new LongAdder[bounds.length];
        Arrays.setAll(b, i -> new LongAdder());
        return new Series(b, new DoubleAdder(), new LongAdder());
      });
      for (int i = 0; i < bounds.length; i++) {
        if (value <= bounds[i]) {
          s.buckets[i].increment();
        }
      }
      s.sum.add(value);
      s.count.increment();
    }

    public long count(String... labelValues) {
      Series s = series.get(key(labelValues));
      return s == null ? 0 : s.count.sum();
    }

    @Override
    String type() {
      return "histogram";
    }

    @Override
    void render(StringBuilder out) {
      series.forEach((k, s) -> {
        for (int i = 0; i < bounds.length; i++) {
          out.append(name).append("_bucket").append(labels(k, "le", format(bounds[i]))).append(' ')
              .append(s.buckets[i].sum()).append('\n');
        }
        out.append(name).append("_bucket").append(labels(k, "le", "+Inf")).append(' ').append(s.count.sum())
            .append('\n');
        out.append(name).append("_sum").append(labels(k, null, null)).append(' ').append(format(s.sum.sum()))
            .append('\n');
        out.append(name).append("_count").append(labels(k, null, null)).append(' ').append(s.count.sum())
            .append('\n');
      });
    }
  }

  private static final class Gauge extends Family {
    private final DoubleSupplier value;

    Gauge(String name, String help, DoubleSupplier value) {
      super(name, help, new String[0]);
      this.value = value;
    }

    @Override
    String type() {
      return "gauge";
    }

    @Override
    void render(StringBuilder out) {
      out.append(name).append(' ').append(format(value.getAsDouble())).append('\n');
    }
  }

  private static final class ComputedCounter extends Family {
    private final Supplier<Map<List<String>, Double>> values;

    ComputedCounter(String name, String help, String[] labelNames, Supplier<Map<List<String>, Double>> values) {
      super(name, help, labelNames);
      this.values = values;
    }

    @Override
    String type() {
      return "counter";
    }

    @Override
    void render(StringBuilder out) {
      values.get().forEach((k, v) -> out.append(name).append(labels(key(k.toArray(String[]::new)), null, null))
          .append(' ').append(format(v)).append('\n'));
    }
  }

  private static String format(double v) {
    return v == Math.rint(v) && !Double.isInfinite(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }
}
