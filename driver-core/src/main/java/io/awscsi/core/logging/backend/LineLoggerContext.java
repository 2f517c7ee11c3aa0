package io.awscsi.core.logging.backend;

import org.apache.logging.log4j.message.MessageFactory;
import org.apache.logging.log4j.spi.ExtendedLogger;
import org.apache.logging.log4j.spi.LoggerContext;
import org.apache.logging.log4j.spi.LoggerRegistry;

/** The one logger context of the process: loggers by name (and message factory), created on first use. */
final class LineLoggerContext implements LoggerContext {

  static final LineLoggerContext INSTANCE = new LineLoggerContext();

  private final LoggerRegistry<LineLogger> loggers = new LoggerRegistry<>();

  private LineLoggerContext() {}

  @Override
  public Object getExternalContext() {
    return null;
  }

  @Override
  public ExtendedLogger getLogger(String name) {
    return getLogger(name, null);
  }

  @Override
  public ExtendedLogger getLogger(String name, MessageFactory messageFactory) {
    LineLogger logger = loggers.getLogger(name, messageFactory);
    if (logger == null) {
      loggers.putIfAbsent(name, messageFactory, new LineLogger(name, messageFactory));
      logger = loggers.getLogger(name, messageFactory);
    }
    return logger;
  }

  @Override
  public LoggerRegistry<LineLogger> getLoggerRegistry() {
    return loggers;
  }

  @Override
  public boolean hasLogger(String name) {
    return loggers.hasLogger(name);
  }

  @Override
  public boolean hasLogger(String name, MessageFactory messageFactory) {
    return loggers.hasLogger(name, messageFactory);
  }

  @Override
  public boolean hasLogger(String name, Class<? extends MessageFactory> messageFactoryClass) {
    return loggers.hasLogger(name, messageFactoryClass);
  }
}
