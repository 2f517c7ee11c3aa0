package io.awscsi.core.inflight;

import io.awscsi.core.errors.DriverException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * At most one operation per key (a volume id, volume id + node id, or a snapshot name). A second call while the first
 * runs is answered ABORTED at once, as the CSI spec asks, instead of queueing behind it.
 */
public final class InFlightGuard {

  /** Held while the operation runs; closing it frees the key. */
  public interface Lease extends AutoCloseable {
    @Override
    void close();
  }

  private final Set<String> running = ConcurrentHashMap.newKeySet();

  public Lease acquire(String key, String operation) {
    if (!running.add(key)) {
      throw DriverException.aborted("an operation on " + key + " is already in progress; " + operation
          + " will be retried by the caller");
    }
    return () -> running.remove(key);
  }

  public boolean isRunning(String key) {
    return running.contains(key);
  }
}
