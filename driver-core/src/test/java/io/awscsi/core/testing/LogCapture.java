package io.awscsi.core.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.AbstractConfiguration;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * Captures everything logged through log4j2 while open, at the level asked for, rendered the way an appender writes
 * it (message, thread context and stack trace), so a test can assert on what would reach the log. Closing restores
 * the root level and removes the appender.
 */
public final class LogCapture implements AutoCloseable {

  /** Everything an appender could write: level, logger, message, thread context and any stack trace. */
  private static final String PATTERN = "%level %c - %m %X%n%throwable";

  private final LoggerContext context;
  private final Level previousRootLevel;
  private final CapturingAppender appender;

  private LogCapture(LoggerContext context, Level previousRootLevel, CapturingAppender appender) {
    this.context = context;
    this.previousRootLevel = previousRootLevel;
    this.appender = appender;
  }

  /** Starts capturing every logger that inherits the root level, at {@code level} and above. */
  public static LogCapture start(Level level) {
    LoggerContext context = (LoggerContext) LogManager.getContext(false);
    Configuration config = context.getConfiguration();
    CapturingAppender appender = new CapturingAppender(PatternLayout.newBuilder().withPattern(PATTERN)
        .withConfiguration(config).build());
    appender.start();
    config.addAppender(appender);
    LoggerConfig root = config.getRootLogger();
    Level previous = root.getLevel();
    root.addAppender(appender, level, null);
    root.setLevel(level);
    context.updateLoggers();
    return new LogCapture(context, previous, appender);
  }

  /** The captured events, oldest first. */
  public List<LogEvent> events() {
    return List.copyOf(appender.events);
  }

  /** All captured output as the layout renders it. */
  public String text() {
    StringBuilder out = new StringBuilder();
    for (LogEvent e : appender.events) {
      out.append(appender.getLayout().toSerializable(e));
    }
    return out.toString();
  }

  /** Rendered messages (without context or stack trace) of the events from {@code loggerName}. */
  public List<String> messages(String loggerName) {
    return appender.events.stream().filter(e -> e.getLoggerName().equals(loggerName))
        .map(e -> e.getMessage().getFormattedMessage()).toList();
  }

  @Override
  public void close() {
    Configuration config = context.getConfiguration();
    LoggerConfig root = config.getRootLogger();
    root.removeAppender(appender.getName());
    root.setLevel(previousRootLevel);
    if (config instanceof AbstractConfiguration abstractConfig) {
      abstractConfig.removeAppender(appender.getName());
    }
    context.updateLoggers();
    appender.stop();
  }

  private static final class CapturingAppender extends AbstractAppender {

    private final List<LogEvent> events = new CopyOnWriteArrayList<>();

    CapturingAppender(PatternLayout layout) {
      super("test-capture-" + System.nanoTime(), null, layout, true, Property.EMPTY_ARRAY);
    }

    @Override
    public void append(LogEvent event) {
      events.add(event.toImmutable());
    }

    @Override
    public PatternLayout getLayout() {
      return (PatternLayout) super.getLayout();
    }
  }
}
