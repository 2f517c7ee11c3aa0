package io.awscsi.core.inflight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InFlightGuardTest {

  private final InFlightGuard guard = new InFlightGuard();

  @Test
  void aSecondAcquireOfAHeldKeyIsAborted() {
    try (InFlightGuard.Lease lease = guard.acquire("vol-1", "DeleteVolume")) {
      assertThatThrownBy(() -> guard.acquire("vol-1", "ControllerPublishVolume"))
          .isInstanceOf(DriverException.class)
          .satisfies(e -> assertThat(((DriverException) e).error()).isInstanceOf(DriverError.Aborted.class))
          .hasMessageContaining("vol-1")
          .hasMessageContaining("ControllerPublishVolume");
      assertThat(guard.isRunning("vol-1")).isTrue();
    }
  }

  @Test
  void closingTheLeaseFreesTheKey() {
    guard.acquire("vol-1", "DeleteVolume").close();

    assertThat(guard.isRunning("vol-1")).isFalse();
    try (InFlightGuard.Lease again = guard.acquire("vol-1", "DeleteVolume")) {
      assertThat(guard.isRunning("vol-1")).isTrue();
    }
  }

  @Test
  void theKeyIsFreedWhenTheOperationFails() {
    assertThatThrownBy(() -> {
      try (InFlightGuard.Lease lease = guard.acquire("vol-1", "DeleteVolume")) {
        throw new IllegalStateException("provider failed");
      }
    }).hasMessage("provider failed");

    assertThat(guard.isRunning("vol-1")).isFalse();
  }

  @Test
  void differentKeysAreIndependent() {
    try (var a = guard.acquire("vol-1", "NodeStageVolume");
        var b = guard.acquire("vol-2", "NodeStageVolume");
        var c = guard.acquire("vol-1/i-0abc", "ControllerPublishVolume")) {
      assertThat(guard.isRunning("vol-1")).isTrue();
      assertThat(guard.isRunning("vol-2")).isTrue();
      assertThat(guard.isRunning("vol-1/i-0abc")).isTrue();
    }
    assertThat(guard.isRunning("vol-1")).isFalse();
    assertThat(guard.isRunning("vol-2")).isFalse();
  }

  @Test
  void manyThreadsRacingForOneKeyGiveExactlyOneWinner() throws Exception {
    int threads = 64;
    CountDownLatch start = new CountDownLatch(1);
    CountDownLatch allTried = new CountDownLatch(threads);
    AtomicInteger winners = new AtomicInteger();
    AtomicInteger aborted = new AtomicInteger();
    List<Future<?>> futures = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < threads; i++) {
        futures.add(pool.submit(() -> {
          start.await();
          try (InFlightGuard.Lease lease = guard.acquire("vol-race", "NodePublishVolume")) {
            winners.incrementAndGet();
            allTried.countDown();
            // Hold the key until every other thread has tried, so no one can win after a release.
            assertThat(allTried.await(10, TimeUnit.SECONDS)).isTrue();
          } catch (DriverException e) {
            assertThat(e.error()).isInstanceOf(DriverError.Aborted.class);
            aborted.incrementAndGet();
            allTried.countDown();
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(20, TimeUnit.SECONDS);
      }
    }

    assertThat(winners).hasValue(1);
    assertThat(aborted).hasValue(threads - 1);
    assertThat(guard.isRunning("vol-race")).isFalse();
  }
}
