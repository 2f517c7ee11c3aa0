package io.awscsi.core.concurrent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class KeyedLocksTest {

  private final KeyedLocks locks = new KeyedLocks();
  private final ExecutorService other = Executors.newSingleThreadExecutor();

  @Test
  void oneKeyIsHeldByOneCallerAtATime() throws Exception {
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> calls = java.util.stream.IntStream.range(0, 50).<Future<?>>mapToObj(i -> pool.submit(() -> {
        locks.withLocks(List.of("vol-1"), () -> {
          most.accumulateAndGet(inside.incrementAndGet(), Math::max);
          Thread.yield();
          return inside.decrementAndGet();
        });
      })).toList();
      for (Future<?> call : calls) {
        call.get(10, TimeUnit.SECONDS);
      }
    }

    assertThat(most.get()).isEqualTo(1);
    assertThat(locks.size()).as("no entry left once nobody holds or waits").isZero();
  }

  @Test
  void otherKeysAreNotBlocked() {
    try (KeyedLocks.Held held = locks.lock("vol-1")) {
      Optional<KeyedLocks.Held> other = locks.tryLock(Duration.ZERO, "vol-2");

      assertThat(other).isPresent();
      other.get().close();
      assertThat(locks.size()).isEqualTo(1);
    }
  }

  @Test
  void aTimedOutTryHoldsNothing() throws Exception {
    try (KeyedLocks.Held held = locks.lock("vol-2")) {
      Optional<KeyedLocks.Held> both = elsewhere(() -> locks.tryLock(Duration.ofMillis(50), "vol-1", "vol-2"));

      assertThat(both).isEmpty();
      Optional<KeyedLocks.Held> one = elsewhere(() -> locks.tryLock(Duration.ZERO, "vol-1"));
      assertThat(one).as("vol-1 was let go").isPresent();
      elsewhere(() -> { one.get().close(); return null; });
    }
    assertThat(locks.size()).isZero();
  }

  @Test
  void keysTakenInOppositeOrdersDoNotDeadlock() throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
      Future<?> a = pool.submit(() -> { await(go); for (int i = 0; i < 2000; i++) locks.lock("a", "b").close(); });
      Future<?> b = pool.submit(() -> { await(go); for (int i = 0; i < 2000; i++) locks.lock("b", "a").close(); });
      go.countDown();
      a.get(20, TimeUnit.SECONDS);
      b.get(20, TimeUnit.SECONDS);
    }
    assertThat(locks.size()).isZero();
  }

  @Test
  void anInterruptedWaitGivesUpAndKeepsTheFlag() throws Exception {
    try (KeyedLocks.Held held = locks.lock("vol-1")) {
      boolean[] flag = new boolean[1];
      Optional<KeyedLocks.Held> got = elsewhere(() -> {
        Thread.currentThread().interrupt();
        Optional<KeyedLocks.Held> g = locks.tryLock(Duration.ofSeconds(5), "vol-1");
        flag[0] = Thread.interrupted();
        return g;
      });

      assertThat(got).isEmpty();
      assertThat(flag[0]).isTrue();
    }
    assertThat(locks.size()).isZero();
  }

  /** Runs on the one other thread (a lock is reentrant for the thread that holds it, and only it may let it go). */
  private <T> T elsewhere(java.util.concurrent.Callable<T> call) throws Exception {
    return other.submit(call).get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stopTheOtherThread() {
    other.shutdownNow();
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
