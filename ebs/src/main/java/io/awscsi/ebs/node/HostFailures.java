package io.awscsi.ebs.node;

import io.awscsi.core.errors.DriverException;
import java.util.function.Supplier;

/**
 * Runs host work and turns whatever a host tool or the file system throws into a {@link DriverException}, so no raw
 * exception reaches a gRPC client; the message says what was being done to which volume, then what failed.
 */
final class HostFailures {

  private HostFailures() {}

  static <T> T call(String action, Supplier<T> work) {
    try {
      return work.get();
    } catch (DriverException e) {
      throw e;
    } catch (RuntimeException e) {
      throw DriverException.internal(action + " failed: " + e.getMessage(), e);
    }
  }

  static void run(String action, Runnable work) {
    call(action, () -> {
      work.run();
      return null;
    });
  }
}
