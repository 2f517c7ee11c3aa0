package io.awscsi.diagnose;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** kubectl's duration words: {@code 90s}, {@code 15m}, {@code 2h}, {@code 1h30m}. */
final class Durations {

  private static final Pattern PART = Pattern.compile("(\\d+)(h|m|s)");

  private Durations() {}

  /** @throws IllegalArgumentException for anything else, or zero */
  static Duration parse(String flag, String text) {
    Matcher m = PART.matcher(text);
    Duration total = Duration.ZERO;
    int end = 0;
    while (m.find() && m.start() == end) {
      long n = Long.parseLong(m.group(1));
      total = total.plus(switch (m.group(2)) {
        case "h" -> Duration.ofHours(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofSeconds(n);
      });
      end = m.end();
    }
    if (end != text.length() || text.isEmpty() || total.isZero()) {
      throw new IllegalArgumentException("--" + flag + " takes a duration like 90s, 15m, 2h or 1h30m, got '" + text
          + "'");
    }
    return total;
  }

  /** The duration as kubectl writes it: {@code 1h}, {@code 1h30m}, {@code 90s}. */
  static String words(Duration d) {
    StringBuilder out = new StringBuilder();
    if (d.toHours() > 0) {
      out.append(d.toHours()).append('h');
    }
    if (d.toMinutesPart() > 0) {
      out.append(d.toMinutesPart()).append('m');
    }
    if (d.toSecondsPart() > 0 || out.isEmpty()) {
      out.append(d.toSecondsPart()).append('s');
    }
    return out.toString();
  }
}
