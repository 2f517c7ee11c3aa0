package io.awscsi.core.testing;

import io.awscsi.core.logging.backend.LineLogging;
import io.awscsi.core.logging.backend.LogLevels;
import io.awscsi.core.logging.backend.LogLineFormat;
import io.awscsi.core.logging.backend.LogRecord;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.logging.log4j.Level;

/**
 * Captures everything the driver's log backend writes while open, at the level asked for, with each record rendered
 * as text and as JSON (the JSON line carries the thread context; both carry the stack trace), so a test can assert on what would reach the log.
 * Closing restores the previous levels and format.
 */
public final class LogCapture implements AutoCloseable {

  private final LogLevels previousLevels;
  private final LogLineFormat previousFormat;
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Consumer<LogRecord> listener = records::add;

  private LogCapture(LogLevels previousLevels, LogLineFormat previousFormat) {
    this.previousLevels = previousLevels;
    this.previousFormat = previousFormat;
  }

  /** Starts capturing every logger that inherits the root level, at {@code level} and above. */
  public static LogCapture start(Level level) {
    LogLevels previous = LineLogging.levels();
    var capture = new LogCapture(previous, LineLogging.format());
    LineLogging.configure(LineLogging.format(), new LogLevels(level, previous.byName()));
    LineLogging.addListener(capture.listener);
    return capture;
  }

  /** The captured records, oldest first. */
  public List<LogRecord> events() {
    return List.copyOf(records);
  }

  /** All captured output in both formats: everything any configuration of the driver could write. */
  public String text() {
    StringBuilder out = new StringBuilder();
    for (LogRecord r : records) {
      out.append(LineLogging.render(LogLineFormat.TEXT, r)).append(LineLogging.render(LogLineFormat.JSON, r));
    }
    return out.toString();
  }

  /** Formatted messages (without context or stack trace) of the records from {@code loggerName}. */
  public List<String> messages(String loggerName) {
    return records.stream().filter(r -> r.loggerName().equals(loggerName)).map(LogRecord::message).toList();
  }

  @Override
  public void close() {
    LineLogging.removeListener(listener);
    LineLogging.configure(previousFormat, previousLevels);
  }
}
