package io.awscsi.core.logging.backend;

import java.time.Instant;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.Marker;
import org.apache.logging.log4j.ThreadContext;
import org.apache.logging.log4j.message.Message;
import org.apache.logging.log4j.message.MessageFactory;
import org.apache.logging.log4j.spi.AbstractLogger;

/**
 * A log4j2 API logger that writes through {@link LineLogging}. The API's many {@code isEnabled} overloads all come
 * down to one threshold check; the threshold is re-derived only when the configuration changed.
 */
final class LineLogger extends AbstractLogger {

  /** The threshold and the configuration generation it was derived from, swapped as one. */
  private record Threshold(int generation, Level level) {}

  private volatile Threshold threshold = new Threshold(-1, Level.OFF);

  LineLogger(String name, MessageFactory messageFactory) {
    super(name, messageFactory);
  }

  @Override
  public Level getLevel() {
    Threshold t = threshold;
    int current = LineLogging.generation();
    if (t.generation() != current) {
      t = new Threshold(current, LineLogging.levels().thresholdFor(getName()));
      threshold = t;
    }
    return t.level();
  }

  private boolean enabled(Level level) {
    return level.intLevel() <= getLevel().intLevel();
  }

  @Override
  public void logMessage(String fqcn, Level level, Marker marker, Message message, Throwable t) {
    Throwable thrown = t != null ? t : message.getThrowable();
    LineLogging.write(new LogRecord(Instant.now(), level, getName(), Thread.currentThread().getName(),
        message.getFormattedMessage(), ThreadContext.getImmutableContext(), thrown));
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, Message message, Throwable t) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, CharSequence message, Throwable t) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, Object message, Throwable t) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, String message, Throwable t) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, String message) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, String message, Object... params) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, String message, Object p0) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, String message, Object p0, Object p1) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, String message, Object p0, Object p1, Object p2) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, String message, Object p0, Object p1, Object p2, Object p3) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, String message, Object p0, Object p1, Object p2, Object p3,
      Object p4) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, String message, Object p0, Object p1, Object p2, Object p3,
      Object p4, Object p5) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, String message, Object p0, Object p1, Object p2, Object p3,
      Object p4, Object p5, Object p6) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, String message, Object p0, Object p1, Object p2, Object p3,
      Object p4, Object p5, Object p6, Object p7) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, String message, Object p0, Object p1, Object p2, Object p3,
      Object p4, Object p5, Object p6, Object p7, Object p8) {
    return enabled(level);
  }

  @Override
  public boolean isEnabled(Level level, Marker marker, String message, Object p0, Object p1, Object p2, Object p3,
      Object p4, Object p5, Object p6, Object p7, Object p8, Object p9) {
    return enabled(level);
  }
}
