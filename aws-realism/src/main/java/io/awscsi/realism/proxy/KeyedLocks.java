package io.awscsi.realism.proxy;

import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Striped locks that serialise the checks and the upstream call of mutations touching the same resources (a volume,
 * an instance, a client token), so two racing calls cannot both pass a check that only one may pass.
 */
public final class KeyedLocks {

  private final ReentrantLock[] stripes;

  public KeyedLocks(int stripeCount) {
    stripes = new ReentrantLock[stripeCount];
    Arrays.setAll(stripes, i -> new ReentrantLock());
  }

  /** Runs {@code action} holding the locks of all keys (none: no lock). */
  public <T> T withLocks(List<String> keys, Supplier<T> action) {
    Held held = lock(keys.toArray(String[]::new));
    try {
      return action.get();
    } finally {
      held.close();
    }
  }

  /** Holds the locks of all keys until closed; stripes are taken in index order so callers cannot deadlock. */
  public Held lock(String... keys) {
    int[] indexes = Arrays.stream(keys).mapToInt(key -> Math.floorMod(key.hashCode(), stripes.length))
        .distinct().sorted().toArray();
    for (int index : indexes) {
      stripes[index].lock();
    }
    return () -> {
      for (int i = indexes.length - 1; i >= 0; i--) {
        stripes[indexes[i]].unlock();
      }
    };
  }

  /** Locks held by one caller. */
  public interface Held extends AutoCloseable {
    @Override
    void close();
  }
}
