package io.awscsi.e2e.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the benchmark takes from a chart as {@code helm template} renders it: the controller plugin's arguments and
 * the sidecars' timeout, worker threads and retry intervals, so the benchmark's client behaves as the installed
 * sidecars would.
 */
final class ChartRender {

  /** One container of the render: its name and its args in order. */
  record Container(String name, List<String> args) {

    Optional<String> flag(String name) {
      String prefix = "--" + name + "=";
      return args.stream().filter(a -> a.startsWith(prefix)).map(a -> a.substring(prefix.length())).findFirst();
    }
  }

  /**
   * How a sidecar calls the driver: each call under {@code timeout}; at most {@code workers} calls at once per work
   * queue; a call answered with anything but OK is repeated after a per-item exponential backoff from
   * {@code retryStart} (doubling) up to {@code retryMax}, as client-go's ItemExponentialFailureRateLimiter does.
   */
  record Sidecar(String name, Duration timeout, int workers, Duration retryStart, Duration retryMax) {

    Duration backoff(int failures) {
      long millis = retryStart.toMillis() << Math.min(failures - 1, 30);
      return Duration.ofMillis(Math.min(Math.max(millis, retryStart.toMillis()), retryMax.toMillis()));
    }

    /** The same sidecar with {@code n} worker threads (several sidecars' workers calling at once). */
    Sidecar withWorkers(int n) {
      return new Sidecar(name, timeout, n, retryStart, retryMax);
    }

    @Override
    public String toString() {
      return name + " --timeout=" + go(timeout) + " --worker-threads=" + workers + " --retry-interval-start="
          + go(retryStart) + " --retry-interval-max=" + go(retryMax);
    }
  }

  private static final Pattern CONTAINER = Pattern.compile("^(\\s*)- name: (\\S+)\\s*$");
  /** An args item, quoted as the project's charts render it or plain as upstream's do ({@code - controller}). */
  private static final Pattern ARG = Pattern.compile("^\\s*- (?:\"(.*)\"|(\\S.*?))\\s*$");

  private final List<Container> containers;

  private ChartRender(List<Container> containers) {
    this.containers = List.copyOf(containers);
  }

  static ChartRender read(Path render) {
    try {
      return parse(Files.readString(render));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the chart render " + render + ": " + e.getMessage(), e);
    }
  }

  /**
   * Containers with an {@code args:} list: quoted strings as the project's charts render them, or plain ones as
   * upstream's chart does (read for the upstream controller's arguments). Items are indented past {@code args:}.
   */
  static ChartRender parse(String yaml) {
    List<Container> found = new ArrayList<>();
    String[] lines = yaml.split("\n");
    for (int i = 0; i < lines.length; i++) {
      Matcher m = CONTAINER.matcher(lines[i]);
      if (!m.matches()) {
        continue;
      }
      int indent = m.group(1).length();
      List<String> args = new ArrayList<>();
      int j = i + 1;
      // The container's own keys are indented two past its "- name:"; its args follow "args:".
      while (j < lines.length && (lines[j].isBlank() || leading(lines[j]) > indent)) {
        if (lines[j].strip().equals("args:")) {
          int argsIndent = leading(lines[j]);
          int k = j + 1;
          while (k < lines.length && (lines[k].isBlank()
              || leading(lines[k]) >= argsIndent && ARG.matcher(lines[k]).matches())) {
            Matcher a = ARG.matcher(lines[k]);
            if (a.matches()) {
              args.add(a.group(1) != null ? a.group(1) : a.group(2));
            }
            k++;
          }
          break;
        }
        j++;
      }
      if (!args.isEmpty()) {
        found.add(new Container(m.group(2), args));
      }
    }
    return new ChartRender(found);
  }

  /** The controller's plugin container: the one named {@code name} that runs {@code --mode controller}. */
  Container controllerPlugin(String name) {
    return containers.stream().filter(c -> c.name().equals(name))
        .filter(c -> c.args().contains("controller") || c.args().contains("--mode=controller")).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("the render has no " + name + " container in controller "
            + "mode; containers: " + containers.stream().map(Container::name).toList()));
  }

  /** A sidecar's call settings; flags the chart does not set take the sidecar's own defaults. */
  Sidecar sidecar(String name, Duration defaultTimeout) {
    Container c = containers.stream().filter(x -> x.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("the render has no " + name + " container"));
    return new Sidecar(name,
        c.flag("timeout").map(ChartRender::goDuration).orElse(defaultTimeout),
        c.flag("worker-threads").map(Integer::parseInt).orElse(10),
        c.flag("retry-interval-start").map(ChartRender::goDuration).orElse(Duration.ofSeconds(1)),
        c.flag("retry-interval-max").map(ChartRender::goDuration).orElse(Duration.ofMinutes(5)));
  }

  private static int leading(String line) {
    int n = 0;
    while (n < line.length() && line.charAt(n) == ' ') {
      n++;
    }
    return n;
  }

  private static final Pattern GO_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

  /** A Go duration such as {@code 60s}, {@code 6m}, {@code 1m30s} or {@code 500ms}. */
  static Duration goDuration(String text) {
    Matcher m = GO_PART.matcher(text);
    long nanos = 0;
    int end = 0;
    while (m.find()) {
      if (m.start() != end) {
        break;
      }
      double value = Double.parseDouble(m.group(1));
      nanos += (long) (value * switch (m.group(2)) {
        case "ms" -> 1e6;
        case "s" -> 1e9;
        case "m" -> 60e9;
        default -> 3600e9;
      });
      end = m.end();
    }
    if (end != text.length() || text.isEmpty()) {
      throw new IllegalArgumentException("not a Go duration: '" + text + "'");
    }
    return Duration.ofNanos(nanos);
  }

  private static String go(Duration d) {
    return d.toMillis() % 60_000 == 0 ? d.toMinutes() + "m" : d.toMillis() % 1000 == 0 ? d.toSeconds() + "s"
        : d.toMillis() + "ms";
  }
}
