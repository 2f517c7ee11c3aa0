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
  /** Every known flag's default ("" for none): what the methods without a fallback hand out for a flag not given. */
  private final Map<String, String> defaults;

  private Flags(Map<String, String> values, List<String> positional, Map<String, String> defaults) {
    this.values = values;
    this.positional = positional;
    this.defaults = defaults;
  }

  /** {@code booleans} are the flags that take no value. */
  public static Flags parse(String[] args, Set<String> known, Set<String> booleans) {
    Map<String, String> none = new LinkedHashMap<>();
    known.forEach(name -> none.put(name, ""));
    return parse(args, known, booleans, none);
  }

  /** {@code defaults}: each known flag's default, "" for none. */
  public static Flags parse(String[] args, Set<String> known, Set<String> booleans, Map<String, String> defaults) {
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
    return new Flags(values, List.copyOf(positional), Map.copyOf(defaults));
  }

  public List<String> positional() {
    return positional;
  }

  public String string(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  /** The flag's value, else its default ("" for none). */
  public String string(String name) {
    String v = values.get(name);
    return v != null ? v : defaultOf(name);
  }

  private String defaultOf(String name) {
    String d = defaults.get(name);
    if (d == null) {
      throw new IllegalStateException("--" + name + " is not a flag of this command");
    }
    return d;
  }

  /** The flag's value, else its default; a default of "" (or none) is false. */
  public boolean bool(String name) {
    String v = values.get(name);
    if (v == null) {
      v = defaults.getOrDefault(name, "");
    }
    if (v.isEmpty()) {
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

  /** The flag's value, else its default; a flag with neither is a programming error. */
  public int integer(String name) {
    return values.containsKey(name) ? integer(name, 0) : wholeNumber(name, defaultOf(name));
  }

  private static int wholeNumber(String name, String v) {
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalStateException("--" + name + " has no default whole number, got '" + v + "'", e);
    }
  }

  /** The flag's value, else its default. */
  public Duration duration(String name) {
    String v = values.get(name);
    return parseDuration(name, v != null ? v : defaultOf(name));
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
