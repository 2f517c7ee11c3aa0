package io.awscsi.ebs.controller;

import io.awscsi.core.errors.DriverException;
import io.awscsi.ebs.cloud.CallDeadline;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock per key (a volume name, a volume id), created on demand and dropped when nobody holds or waits for it.
 * The gRPC in-flight guard already refuses a second identical call; these locks order the calls it lets through
 * together, e.g. two CreateVolume calls that a retrying client sent with one name, or publishes of one volume to
 * two nodes, so that the second sees what the first did.
 */
final class KeyedLocks {

  /** Held until closed. */
  interface Held extends AutoCloseable {
    @Override
    void close();
  }

  private static final class Entry {
    final ReentrantLock lock = new ReentrantLock(true);
    int users;
  }

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

  Held lock(String key, CallDeadline deadline, String operation) {
    Entry entry = entries.compute(key, (k, e) -> {
      Entry x = e == null ? new Entry() : e;
      x.users++;
      return x;
    });
    boolean locked = false;
    try {
      locked = entry.lock.tryLock(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!locked) {
      release(key, entry);
      throw DriverException.aborted(operation + ": another operation on " + key
          + " did not finish before this call's deadline; it will be retried");
    }
    return () -> {
      entry.lock.unlock();
      release(key, entry);
    };
  }

  int size() {
    return entries.size();
  }

  private void release(String key, Entry entry) {
    entries.computeIfPresent(key, (k, e) -> {
      e.users--;
      return e.users == 0 ? null : e;
    });
  }
}
