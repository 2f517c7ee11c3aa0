package io.awscsi.core.logging;

import io.awscsi.core.logging.backend.LineLogging;
import io.awscsi.core.logging.backend.LogLevels;
import io.awscsi.core.logging.backend.LogLineFormat;
import org.apache.logging.log4j.Level;

/** Log format and level from the flags: text lines for people, or JSON (ECS) with the call fields for collectors. */
public final class LoggingSetup {

  public enum Format { TEXT, JSON }

  private LoggingSetup() {}

  public static void configure(Format format, Level level) {
    LineLogging.configure(format == Format.JSON ? LogLineFormat.JSON : LogLineFormat.TEXT, LogLevels.defaults(level));
  }
}
