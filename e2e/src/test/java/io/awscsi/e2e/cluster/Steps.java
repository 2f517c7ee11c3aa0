package io.awscsi.e2e.cluster;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The timed steps of one case: each step is run, asserted by its body, and printed as it ends
 * ({@code [case] 3 VolumeAttachment attached   1840 ms  OK}); {@link #summary()} closes the case with every step's
 * time, so a run's output says how long each part of a workflow took on that cluster.
 */
final class Steps {

  record Step(int number, String name, long millis, boolean ok, String detail) {}

  private final String caseName;
  private final PrintStream out;
  private final List<Step> steps = new ArrayList<>();
  private final long started = System.nanoTime();

  Steps(String caseName) {
    this(caseName, System.out);
  }

  Steps(String caseName, PrintStream out) {
    this.caseName = caseName;
    this.out = out;
  }

  /** Runs {@code body}; a step that throws is printed as FAILED and rethrown. */
  void step(String name, Runnable body) {
    step(name, () -> {
      body.run();
      return "";
    });
  }

  /** Runs {@code body}, whose result is printed after the timing (a volume id, a size, a holder). */
  <T> T step(String name, Supplier<T> body) {
    long start = System.nanoTime();
    try {
      T result = body.get();
      record(name, start, true, result == null || result instanceof org.assertj.core.api.Assert<?, ?> ? ""
          : abbreviate(result.toString()));
      return result;
    } catch (RuntimeException | AssertionError e) {
      record(name, start, false, String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
      throw e;
    }
  }

  private static String abbreviate(String detail) {
    return detail.length() <= 160 ? detail : detail.substring(0, 157) + "...";
  }

  private void record(String name, long start, boolean ok, String detail) {
    Step s = new Step(steps.size() + 1, name, Duration.ofNanos(System.nanoTime() - start).toMillis(), ok, detail);
    steps.add(s);
    out.printf("[%s] %-2d %-58s %7d ms  %s%s%n", caseName, s.number(), name, s.millis(), ok ? "OK" : "FAILED",
        detail.isEmpty() ? "" : "  " + detail);
    out.flush();
  }

  List<Step> steps() {
    return List.copyOf(steps);
  }

  long totalMillis() {
    return Duration.ofNanos(System.nanoTime() - started).toMillis();
  }

  String summary() {
    long failed = steps.stream().filter(s -> !s.ok()).count();
    String line = String.format("[%s] %d steps, %d failed, %d ms", caseName, steps.size(), failed, totalMillis());
    out.println(line);
    out.flush();
    return line;
  }
}
