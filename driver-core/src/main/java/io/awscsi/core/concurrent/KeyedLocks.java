package io.awscsi.core.concurrent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * One lock per key (a volume name, a volume id, a client token), made when first wanted and dropped when nobody holds
 * or waits for it, so the map stays as small as the work in flight. Several keys are taken in one order (sorted), so
 * two callers locking overlapping keys cannot deadlock; waiters get a lock in arrival order.
 */
public final class KeyedLocks {

  /** Locks held until closed. */
  public interface Held extends AutoCloseable {
    @Override
    void close();
  }

  private static final class Entry {
    final ReentrantLock lock = new ReentrantLock(true);
    int users;
  }

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

  /** Holds the locks of all keys (none: nothing held), waiting as long as it takes. */
  public Held lock(Collection<String> keys) {
    List<String> taken = new ArrayList<>();
    List<Entry> held = new ArrayList<>();
    for (String key : new TreeSet<>(keys)) {
      Entry entry = use(key);
      entry.lock.lock();
      taken.add(key);
      held.add(entry);
    }
    return () -> release(taken, held);
  }

  public Held lock(String... keys) {
    return lock(List.of(keys));
  }

  /**
   * Holds the locks of all keys, or empty when they could not all be had within {@code timeout} (or the thread was
   * interrupted, whose flag stays set); nothing is held then.
   */
  public Optional<Held> tryLock(Duration timeout, Collection<String> keys) {
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    List<String> taken = new ArrayList<>();
    List<Entry> held = new ArrayList<>();
    for (String key : new TreeSet<>(keys)) {
      Entry entry = use(key);
      boolean locked = false;
      try {
        locked = entry.lock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (!locked) {
        unuse(key, entry);
        release(taken, held);
        return Optional.empty();
      }
      taken.add(key);
      held.add(entry);
    }
    return Optional.of(() -> release(taken, held));
  }

  public Optional<Held> tryLock(Duration timeout, String... keys) {
    return tryLock(timeout, List.of(keys));
  }

  /** Runs {@code action} holding the locks of all keys. */
  public <T> T withLocks(Collection<String> keys, Supplier<T> action) {
    try (Held held = lock(keys)) {
      return action.get();
    }
  }

  /** Keys locked or waited for now. */
  public int size() {
    return entries.size();
  }

  private Entry use(String key) {
    return entries.compute(key, (k, e) -> {
      Entry x = e == null ? new Entry() : e;
      x.users++;
      return x;
    });
  }

  private void unuse(String key, Entry entry) {
    entries.computeIfPresent(key, (k, e) -> {
      if (e == entry) {
        e.users--;
      }
      return e.users == 0 ? null : e;
    });
  }

  private void release(List<String> keys, List<Entry> held) {
    for (int i = held.size() - 1; i >= 0; i--) {
      held.get(i).lock.unlock();
      unuse(keys.get(i), held.get(i));
    }
  }
}
