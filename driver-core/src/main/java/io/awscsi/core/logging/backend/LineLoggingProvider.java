package io.awscsi.core.logging.backend;

import org.apache.logging.log4j.spi.DefaultThreadContextMap;
import org.apache.logging.log4j.spi.Provider;

/** Found by the log4j2 API through {@code META-INF/services}; the API's own thread-context map carries call fields. */
public final class LineLoggingProvider extends Provider {

  public LineLoggingProvider() {
    super(15, CURRENT_VERSION, LineLoggerContextFactory.class, DefaultThreadContextMap.class);
  }
}
