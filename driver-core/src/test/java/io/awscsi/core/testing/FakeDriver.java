package io.awscsi.core.testing;

import io.awscsi.core.provider.ControllerProvider;
import io.awscsi.core.provider.DriverProvider;
import io.awscsi.core.provider.NodeProvider;
import java.util.Optional;

/** A {@link DriverProvider} in one of the three modes, around fake (or real) controller and node parts. */
public final class FakeDriver {

  public static final String NAME = "fake.csi.awscsi.io";
  public static final String VERSION = "0.0.0-test";

  private FakeDriver() {}

  public static DriverProvider controllerMode(ControllerProvider controller) {
    return new DriverProvider(NAME, VERSION, Optional.of(controller), Optional.empty(), true, () -> { });
  }

  public static DriverProvider nodeMode(NodeProvider node) {
    return new DriverProvider(NAME, VERSION, Optional.empty(), Optional.of(node), true, () -> { });
  }

  public static DriverProvider allMode(ControllerProvider controller, NodeProvider node) {
    return new DriverProvider(NAME, VERSION, Optional.of(controller), Optional.of(node), true, () -> { });
  }
}
