package io.awscsi.core.logging.backend;

import java.time.Instant;
import java.util.Map;
import org.apache.logging.log4j.Level;

/** One log event as the backend writes it: the message already formatted, the thread context copied. */
public record LogRecord(Instant time, Level level, String loggerName, String threadName, String message,
    Map<String, String> context, Throwable thrown) {

  public LogRecord {
    context = Map.copyOf(context);
  }
}
