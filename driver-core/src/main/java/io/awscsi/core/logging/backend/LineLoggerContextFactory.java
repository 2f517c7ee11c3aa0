package io.awscsi.core.logging.backend;

import java.net.URI;
import org.apache.logging.log4j.spi.LoggerContext;
import org.apache.logging.log4j.spi.LoggerContextFactory;

/** Hands out the single {@link LineLoggerContext}: the driver has one configuration for the whole process. */
public final class LineLoggerContextFactory implements LoggerContextFactory {

  @Override
  public LoggerContext getContext(String fqcn, ClassLoader loader, Object externalContext, boolean currentContext) {
    return LineLoggerContext.INSTANCE;
  }

  @Override
  public LoggerContext getContext(String fqcn, ClassLoader loader, Object externalContext, boolean currentContext,
      URI configLocation, String name) {
    return LineLoggerContext.INSTANCE;
  }

  @Override
  public void removeContext(LoggerContext context) {}

  @Override
  public boolean isClassLoaderDependent() {
    return false;
  }
}
