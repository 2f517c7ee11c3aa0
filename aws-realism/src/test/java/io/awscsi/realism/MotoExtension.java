package io.awscsi.realism;

import io.awscsi.realism.process.MotoServer;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One moto server for the whole test run (it takes seconds to start), injected as a {@link MotoServer} parameter and
 * closed by JUnit when the run ends.
 */
public final class MotoExtension implements ParameterResolver {

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == MotoServer.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getRoot().getStore(ExtensionContext.Namespace.create(MotoExtension.class))
        .getOrComputeIfAbsent("moto", key -> MotoServer.start(), MotoServer.class);
  }
}
