package io.awscsi.efs.node;

import io.awscsi.core.errors.DriverException;
import java.util.concurrent.Semaphore;

/**
 * {@code --max-inflight-mount-calls}: at most that many mounts at once on this node; one more is ABORTED at once (the
 * kubelet retries), because every efs-utils mount starts a TLS proxy and a burst can exhaust the node's memory.
 */
final class MountCallLimiter {

  /** Held while a mount runs. */
  interface Permit extends AutoCloseable {
    @Override
    void close();
  }

  private final int limit;
  private final Semaphore permits;

  /** {@code limit} 0 or less means no limit. */
  MountCallLimiter(int limit) {
    this.limit = limit;
    this.permits = limit > 0 ? new Semaphore(limit) : null;
  }

  Permit acquire(String volumeId) {
    if (permits == null) {
      return () -> { };
    }
    if (!permits.tryAcquire()) {
      throw DriverException.aborted("this node already runs " + limit + " mount calls (--max-inflight-mount-calls); "
          + "NodePublishVolume of " + volumeId + " will be retried");
    }
    return permits::release;
  }
}
