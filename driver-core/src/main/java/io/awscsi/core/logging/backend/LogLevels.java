package io.awscsi.core.logging.backend;

import java.util.Map;
import java.util.Objects;
import org.apache.logging.log4j.Level;

/**
 * The threshold per logger: the level of the longest configured name that is the logger's name or a dotted prefix of
 * it, else the root level (log4j's hierarchy, without its configuration machinery).
 */
public record LogLevels(Level root, Map<String, Level> byName) {

  public LogLevels {
    Objects.requireNonNull(root, "root");
    byName = Map.copyOf(byName);
  }

  /** The driver's defaults: the SDK, Netty, gRPC and fabric8 are chatty below WARN; their warnings still show. */
  public static LogLevels defaults(Level root) {
    return new LogLevels(root, Map.of(
        "software.amazon.awssdk", Level.WARN,
        "io.netty", Level.WARN,
        // gRPC sets SO_KEEPALIVE on every channel; a Unix socket has none, and Netty warns about it per connection.
        "io.netty.bootstrap", Level.ERROR,
        "io.grpc", Level.WARN,
        "io.fabric8", Level.WARN));
  }

  public Level thresholdFor(String loggerName) {
    String name = loggerName;
    while (true) {
      Level level = byName.get(name);
      if (level != null) {
        return level;
      }
      int dot = name.lastIndexOf('.');
      if (dot < 0) {
        return root;
      }
      name = name.substring(0, dot);
    }
  }
}
