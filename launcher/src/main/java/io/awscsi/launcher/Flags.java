package io.awscsi.launcher;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Command-line flags in the forms {@code --name value}, {@code --name=value} and bare boolean {@code --name}.
 * Unknown flags are an error naming them, so a typo never silently falls back to a default.
 */
public final class Flags {

  private final Map<String, String> values;
  private final List<String> positional;

  private Flags(Map<String, String> values, List<String> positional) {
    this.values = values;
    this.positional = positional;
  }

  /** {@code booleans} are the flags that take no value. */
  public static Flags parse(String[] args, Set<String> known, Set<String> booleans) {
    Map<String, String> values = new LinkedHashMap<>();
    List<String> positional = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        positional.add(arg);
        continue;
      }
      String name = arg.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (!known.contains(name)) {
        throw new IllegalArgumentException("unknown flag --" + name + " (see --help)");
      }
      if (value == null) {
        if (booleans.contains(name)) {
          value = "true";
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          throw new IllegalArgumentException("flag --" + name + " needs a value");
        }
      }
      values.put(name, value);
    }
    return new Flags(values, List.copyOf(positional));
  }

  public List<String> positional() {
    return positional;
  }

  public String string(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  public boolean bool(String name) {
    String v = values.get(name);
    if (v == null) {
      return false;
    }
    return switch (v.toLowerCase()) {
      case "true", "1", "yes" -> true;
      case "false", "0", "no" -> false;
      default -> throw new IllegalArgumentException("--" + name + " takes true or false, got " + v);
    };
  }

  public int integer(String name, int fallback) {
    String v = values.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " takes a whole number, got " + v);
    }
  }

  /** Durations as Go writes them in upstream flags: {@code 500ms}, {@code 2s}, {@code 30m}, {@code 1h}. */
  public Duration duration(String name, Duration fallback) {
    String v = values.get(name);
    return v == null ? fallback : parseDuration(name, v);
  }

  static Duration parseDuration(String name, String v) {
    String s = v.trim();
    try {
      if (s.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
      }
      long n = Long.parseLong(s.substring(0, s.length() - 1));
      return switch (s.charAt(s.length() - 1)) {
        case 's' -> Duration.ofSeconds(n);
        case 'm' -> Duration.ofMinutes(n);
        case 'h' -> Duration.ofHours(n);
        default -> throw new NumberFormatException();
      };
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("--" + name + " takes a duration like 500ms, 2s, 30m or 1h, got " + v);
    }
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }
}
