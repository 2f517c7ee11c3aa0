package io.awscsi.e2e.localstack;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Hands the lane's tests one LocalStack for the whole test run (started on first use, stopped when the run ends), so
 * its start (EC2 backend built, seconds) is paid once. A LocalStack that cannot start fails each test with the reason.
 */
final class LocalStackLane implements ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LocalStackLane.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == LocalStackEmulator.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    // The root store closes AutoCloseable values when the run ends.
    return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(LocalStackEmulator.class,
        key -> LocalStackEmulator.start(System.getenv()), LocalStackEmulator.class);
  }
}
