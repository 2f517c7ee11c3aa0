package io.awscsi.core.logging.backend;

import io.awscsi.core.json.JsonQuoting;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.TreeMap;

/**
 * How one record becomes one line: text for people ({@code time LEVEL Logger - message}, a stack trace below when
 * there is one), or ECS JSON for collectors, with the thread context (the CSI call fields) as top-level fields.
 */
public enum LogLineFormat {
  TEXT {
    @Override
    String render(LogRecord r) {
      var out = new StringBuilder(128);
      out.append(TIME.format(r.time())).append(' ');
      String level = r.level().name();
      out.append(level).append(" ".repeat(Math.max(0, 5 - level.length()))).append(' ');
      out.append(simpleName(r.loggerName())).append(" - ").append(r.message()).append('\n');
      if (r.thrown() != null) {
        out.append(stackTrace(r.thrown()));
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

  private static void field(StringBuilder out, String name, String value) {
    quote(out, name);
    out.append(':');
    quote(out, value == null ? "" : value);
    out.append(',');
  }

  private static void quote(StringBuilder out, String s) {
    JsonQuoting.quote(out, s);
  }
}
