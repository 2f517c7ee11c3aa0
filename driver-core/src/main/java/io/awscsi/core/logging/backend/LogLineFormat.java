package io.awscsi.core.logging.backend;

import io.awscsi.core.json.JsonQuoting;
import io.awscsi.core.logging.SecretValues;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * How one record becomes one line: text for people ({@code time LEVEL Logger - message}, a stack trace below when
 * there is one), or ECS JSON for collectors, with the thread context (the CSI call fields) as top-level fields.
 *
 * <p>Every value is written so that it cannot forge a line or drive a terminal: in text, line breaks, escape
 * sequences and other control characters of messages and exception messages are written as visible escapes
 * ({@code \n}, {@code \x1b}, {@code \u2028}), so one record is one line plus its own stack frames; in JSON they are
 * JSON escapes. Remembered secret values ({@link SecretValues}) are masked in both, whoever wrote the line.
 */
public enum LogLineFormat {
  TEXT {
    @Override
    String render(LogRecord r) {
      var out = new StringBuilder(128);
      out.append(TIME.format(r.time())).append(' ');
      String level = r.level().name();
      out.append(level).append(" ".repeat(Math.max(0, 5 - level.length()))).append(' ');
      out.append(escapeText(simpleName(r.loggerName()))).append(" - ").append(clean(r.message())).append('\n');
      if (r.thrown() != null) {
        appendStackTrace(out, r.thrown());
      }
      return out.toString();
    }
  },
  JSON {
    @Override
    String render(LogRecord r) {
      var out = new StringBuilder(256).append('{');
      field(out, "@timestamp", TIME.format(r.time()));
      field(out, "ecs.version", "1.2.0");
      field(out, "log.level", r.level().name());
      field(out, "message", r.message());
      field(out, "process.thread.name", r.threadName());
      field(out, "log.logger", r.loggerName());
      for (Map.Entry<String, String> e : new TreeMap<>(r.context()).entrySet()) {
        field(out, e.getKey(), e.getValue());
      }
      if (r.thrown() != null) {
        field(out, "error.type", r.thrown().getClass().getName());
        if (r.thrown().getMessage() != null) {
          field(out, "error.message", r.thrown().getMessage());
        }
        field(out, "error.stack_trace", stackTrace(r.thrown()));
      }
      out.setLength(out.length() - 1);
      return out.append("}\n").toString();
    }
  };

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  /** The record as it is written, ending with a newline. */
  abstract String render(LogRecord record);

  public static String simpleName(String loggerName) {
    return loggerName.substring(loggerName.lastIndexOf('.') + 1);
  }

  static String stackTrace(Throwable t) {
    var text = new StringWriter();
    t.printStackTrace(new PrintWriter(text));
    return text.toString();
  }

  /**
   * {@code s} with every character that could end a line, start a terminal escape or reorder text written visibly:
   * C0 and C1 controls and DEL as {@code \n}, {@code \r}, {@code \t} or {@code \xHH}, the Unicode line and paragraph
   * separators and bidirectional overrides as {@code \}{@code uHHHH}. Other text, backslashes included, is unchanged.
   */
  public static String escapeText(String s) {
    if (s == null) {
      return "null";
    }
    int i = 0;
    while (i < s.length() && !JsonQuoting.isUnsafe(s.charAt(i))) {
      i++;
    }
    if (i == s.length()) {
      return s;
    }
    StringBuilder out = new StringBuilder(s.length() + 16).append(s, 0, i);
    for (; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!JsonQuoting.isUnsafe(c)) {
        out.append(c);
        continue;
      }
      switch (c) {
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> out.append(c < 0x100 ? String.format("\\x%02x", (int) c) : String.format("\\u%04x", (int) c));
      }
    }
    return out.toString();
  }


  /** A value as the text format writes it: secrets masked, then escaped. */
  private static String clean(String s) {
    return escapeText(SecretValues.redact(s));
  }

  /**
   * Like {@link Throwable#printStackTrace()}, but each throwable's own line (type and message) is cleaned: an
   * exception message is caller-controlled text as often as not. Frames are the JVM's and written as they are.
   */
  private static void appendStackTrace(StringBuilder out, Throwable t) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    appendThrowable(out, t, new StackTraceElement[0], "", "", seen);
  }

  private static void appendThrowable(StringBuilder out, Throwable t, StackTraceElement[] enclosing, String caption,
      String prefix, Set<Throwable> seen) {
    if (!seen.add(t)) {
      out.append(prefix).append(caption).append("[CIRCULAR REFERENCE: ").append(clean(t.toString())).append("]\n");
      return;
    }
    StackTraceElement[] frames = t.getStackTrace();
    int m = frames.length - 1;
    int n = enclosing.length - 1;
    while (m >= 0 && n >= 0 && frames[m].equals(enclosing[n])) {
      m--;
      n--;
    }
    int inCommon = frames.length - 1 - m;
    out.append(prefix).append(caption).append(clean(t.toString())).append('\n');
    for (int i = 0; i <= m; i++) {
      out.append(prefix).append("\tat ").append(escapeText(frames[i].toString())).append('\n');
    }
    if (inCommon != 0) {
      out.append(prefix).append("\t... ").append(inCommon).append(" more\n");
    }
    for (Throwable suppressed : t.getSuppressed()) {
      appendThrowable(out, suppressed, frames, "Suppressed: ", prefix + "\t", seen);
    }
    if (t.getCause() != null) {
      appendThrowable(out, t.getCause(), frames, "Caused by: ", prefix, seen);
    }
  }

  private static void field(StringBuilder out, String name, String value) {
    quote(out, name);
    out.append(':');
    quote(out, value == null ? "" : SecretValues.redact(value));
    out.append(',');
  }

  private static void quote(StringBuilder out, String s) {
    JsonQuoting.quote(out, s);
  }
}
