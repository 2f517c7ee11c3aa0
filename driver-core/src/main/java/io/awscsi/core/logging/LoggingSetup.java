package io.awscsi.core.logging;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.builder.api.AppenderComponentBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory;
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;

/** Log format and level from the flags: text lines for people, or JSON (ECS) with the call fields for collectors. */
public final class LoggingSetup {

  public enum Format { TEXT, JSON }

  private LoggingSetup() {}

  public static void configure(Format format, Level level) {
    ConfigurationBuilder<BuiltConfiguration> b = ConfigurationBuilderFactory.newConfigurationBuilder();
    b.setStatusLevel(Level.ERROR);
    AppenderComponentBuilder console = b.newAppender("stderr", "Console").addAttribute("target", "SYSTEM_ERR");
    if (format == Format.JSON) {
      console.add(b.newLayout("JsonTemplateLayout").addAttribute("eventTemplateUri", "classpath:EcsLayout.json"));
    } else {
      console.add(b.newLayout("PatternLayout")
          .addAttribute("pattern", "%d{yyyy-MM-dd'T'HH:mm:ss.SSS'Z'}{UTC} %-5level %c{1} - %msg%n%throwable"));
    }
    b.add(console);
    // The SDK and Netty are chatty at debug; their warnings still show.
    b.add(b.newLogger("software.amazon.awssdk", Level.WARN));
    b.add(b.newLogger("io.netty", Level.WARN));
    // gRPC sets SO_KEEPALIVE on every channel; a Unix socket has none, and Netty warns about it on each connection.
    b.add(b.newLogger("io.netty.bootstrap", Level.ERROR));
    b.add(b.newLogger("io.grpc", Level.WARN));
    b.add(b.newLogger("io.fabric8", Level.WARN));
    b.add(b.newRootLogger(level).add(b.newAppenderRef("stderr")));
    BuiltConfiguration configuration = b.build(false);
    // Starting log4j with this configuration skips finding and parsing the default XML file (an XML parser and
    // ~300 classes the node plugin would otherwise load); where logging already started (tests), reconfigure.
    LoggerContext context = Configurator.initialize(configuration);
    if (context == null || context.getConfiguration() != configuration) {
      Configurator.reconfigure(configuration);
    }
  }
}
