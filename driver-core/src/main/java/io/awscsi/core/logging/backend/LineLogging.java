package io.awscsi.core.logging.backend;

import java.io.PrintStream;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.logging.log4j.Level;

/**
 * The backend's state: format, levels and where lines go. The driver logs through the log4j2 API; this small backend
 * stands in for log4j-core, which cost the node plugin ~600 classes, ~16 MiB of resident memory and a fifth of its
 * start-up for a console appender. Lines are written whole, one {@code write} each, so concurrent calls never
 * interleave within a line.
 */
public final class LineLogging {

  private static volatile LogLineFormat format = LogLineFormat.TEXT;
  private static volatile LogLevels levels = LogLevels.defaults(Level.INFO);
  /** Bumped on every change so each logger re-derives its threshold once, not on every call. */
  private static volatile int generation;
  private static volatile PrintStream out = System.err;
  private static final List<Consumer<LogRecord>> LISTENERS = new CopyOnWriteArrayList<>();

  private LineLogging() {}

  public static synchronized void configure(LogLineFormat newFormat, LogLevels newLevels) {
    format = Objects.requireNonNull(newFormat, "format");
    levels = Objects.requireNonNull(newLevels, "levels");
    generation++;
  }

  public static LogLevels levels() {
    return levels;
  }

  public static LogLineFormat format() {
    return format;
  }

  /** Where lines go (standard error unless a test or tool redirects them). */
  public static void output(PrintStream stream) {
    out = Objects.requireNonNull(stream, "stream");
  }

  /** Also hands every written record to {@code listener} (tests capture what reaches the log this way). */
  public static void addListener(Consumer<LogRecord> listener) {
    LISTENERS.add(listener);
  }

  public static void removeListener(Consumer<LogRecord> listener) {
    LISTENERS.remove(listener);
  }

  /** {@code record} as {@code lineFormat} writes it, newline included. */
  public static String render(LogLineFormat lineFormat, LogRecord record) {
    return lineFormat.render(record);
  }

  static int generation() {
    return generation;
  }

  static void write(LogRecord record) {
    String line = format.render(record);
    PrintStream stream = out;
    byte[] bytes = line.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    synchronized (stream) {
      stream.write(bytes, 0, bytes.length);
      stream.flush();
    }
    for (Consumer<LogRecord> listener : LISTENERS) {
      listener.accept(record);
    }
  }
}
