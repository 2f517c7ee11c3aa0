package io.awscsi.ebs.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DescribeBatcherTest {

  /** A fake DescribeVolumes: knows some ids, fails the whole call when asked for an unknown one, like EC2. */
  private final Set<String> known = java.util.stream.IntStream.rangeClosed(1, 40).mapToObj(i -> "vol-" + i)
      .collect(java.util.stream.Collectors.toSet());
  private final List<Set<String>> calls = new CopyOnWriteArrayList<>();
  private final AtomicLong clock = new AtomicLong();

  private Map<String, String> describe(Set<String> ids, CallDeadline deadline) {
    calls.add(Set.copyOf(ids));
    for (String id : ids) {
      if (!known.contains(id)) {
        throw new AwsCallException(new AwsCallError.NotFound("volume", "", "InvalidVolume.NotFound: " + id));
      }
    }
    Map<String, String> found = new HashMap<>();
    ids.forEach(id -> found.put(id, "disk " + id));
    return found;
  }

  private DescribeBatcher<String, String> batcher(int maxEntries, Duration delay) {
    return new DescribeBatcher<>("test", maxEntries, delay, Duration.ofHours(1), this::describe, clock::get);
  }

  private static List<Optional<String>> concurrently(DescribeBatcher<String, String> batcher, List<String> keys)
      throws Exception {
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Optional<String>>> futures = new ArrayList<>();
      for (String key : keys) {
        futures.add(pool.submit(() -> batcher.get(key, CallDeadline.after(Duration.ofSeconds(5)))));
      }
      List<Optional<String>> results = new ArrayList<>();
      for (Future<Optional<String>> f : futures) {
        results.add(f.get());
      }
      return results;
    }
  }

  @Test
  void aLookupOnAnIdleBatcherIsSentAtOnce() throws Exception {
    DescribeBatcher<String, String> batcher = new DescribeBatcher<>("test", 500, Duration.ofSeconds(30),
        this::describe);
    long start = System.nanoTime();
    assertThat(batcher.get("vol-1", CallDeadline.after(Duration.ofSeconds(5)))).contains("disk vol-1");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void concurrentLookupsShareOneCallAndDuplicatesOneSlot() throws Exception {
    DescribeBatcher<String, String> batcher = new DescribeBatcher<>("test", 500, Duration.ofMillis(300),
        this::describe);
    batcher.get("vol-9", CallDeadline.after(Duration.ofSeconds(5)));
    calls.clear();
    List<Optional<String>> results = concurrently(batcher, List.of("vol-1", "vol-2", "vol-1", "vol-3", "vol-2"));
    assertThat(results).containsExactly(Optional.of("disk vol-1"), Optional.of("disk vol-2"),
        Optional.of("disk vol-1"), Optional.of("disk vol-3"), Optional.of("disk vol-2"));
    assertThat(calls).containsExactly(Set.of("vol-1", "vol-2", "vol-3"));
  }

  @Test
  void callsOfABusyBatcherAreAtLeastTheDelayApart() throws Exception {
    List<Long> sent = new CopyOnWriteArrayList<>();
    DescribeBatcher<String, String> timed = new DescribeBatcher<>("timed", 500, Duration.ofMillis(300),
        (ids, d) -> {
          sent.add(System.nanoTime());
          return describe(ids, d);
        });
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < 20; i++) {
        String key = "vol-" + (i % 10 + 1);
        pool.submit(() -> timed.get(key, CallDeadline.after(Duration.ofSeconds(5))));
        Thread.sleep(50);
      }
    }
    assertThat(sent.size()).isBetween(2, 5);
    for (int i = 1; i < sent.size(); i++) {
      assertThat(Duration.ofNanos(sent.get(i) - sent.get(i - 1))).isGreaterThanOrEqualTo(Duration.ofMillis(290));
    }
  }

  @Test
  void aFullBatchIsSentWithoutWaitingForTheDelay() throws Exception {
    DescribeBatcher<String, String> batcher = new DescribeBatcher<>("test", 2, Duration.ofSeconds(30),
        this::describe);
    batcher.get("vol-9", CallDeadline.after(Duration.ofSeconds(5)));
    calls.clear();
    long start = System.nanoTime();
    concurrently(batcher, List.of("vol-1", "vol-2"));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(calls).containsExactly(Set.of("vol-1", "vol-2"));
  }

  @Test
  void oneBadIdDoesNotFailTheBatchAndIsLookedUpAloneAfterwards() throws Exception {
    DescribeBatcher<String, String> batcher = batcher(500, Duration.ofMillis(200));
    List<String> keys = new ArrayList<>(known.stream().sorted().toList());
    keys.add(17, "vol-bad");
    List<Optional<String>> results = concurrently(batcher, keys);
    for (int i = 0; i < keys.size(); i++) {
      assertThat(results.get(i)).isEqualTo(keys.get(i).equals("vol-bad") ? Optional.empty()
          : Optional.of("disk " + keys.get(i)));
    }
    // Halving isolates the bad id in a few calls rather than one call per id (41 here).
    assertThat(calls.size()).isLessThanOrEqualTo(13);
    assertThat(batcher.isLikelyBad("vol-bad")).isTrue();
    calls.clear();
    concurrently(batcher, List.of("vol-1", "vol-bad"));
    assertThat(calls).containsExactlyInAnyOrder(Set.of("vol-1"), Set.of("vol-bad"));
  }

  @Test
  void likelyBadIdsAreForgottenAfterAnHour() throws Exception {
    DescribeBatcher<String, String> batcher = batcher(500, Duration.ofMillis(50));
    concurrently(batcher, List.of("vol-bad"));
    assertThat(batcher.isLikelyBad("vol-bad")).isTrue();
    clock.addAndGet(Duration.ofHours(1).toNanos() + 1);
    assertThat(batcher.isLikelyBad("vol-bad")).isFalse();
  }

  @Test
  void missingIdsRememberedAreBoundedAndExpiredOnesMakeRoom() {
    DescribeBatcher<String, String> batcher = batcher(1, Duration.ZERO);
    CallDeadline deadline = CallDeadline.after(Duration.ofSeconds(10));
    for (int i = 0; i < DescribeBatcher.MAX_BAD_KEYS + 10; i++) {
      assertThat(batcher.get("vol-gone-" + i, deadline)).isEmpty();
    }
    assertThat(batcher.badKeyCount()).isEqualTo(DescribeBatcher.MAX_BAD_KEYS);
    // Once the memory has expired, the next missing id clears the old ones instead of being refused.
    clock.addAndGet(Duration.ofHours(1).toNanos() + 1);
    assertThat(batcher.get("vol-gone-last", deadline)).isEmpty();
    assertThat(batcher.badKeyCount()).isEqualTo(1);
  }

  @Test
  void otherErrorsReachEveryCallerOfTheBatch() {
    DescribeBatcher<String, String> failing = new DescribeBatcher<>("test", 500, Duration.ofMillis(50),
        (ids, d) -> {
          throw new AwsCallException(new AwsCallError.Throttled("RequestLimitExceeded", "slow down"));
        });
    assertThatThrownBy(() -> failing.get("vol-1", CallDeadline.after(Duration.ofSeconds(5))))
        .isInstanceOfSatisfying(AwsCallException.class,
            e -> assertThat(e.error()).isInstanceOf(AwsCallError.Throttled.class));
  }

  @Test
  void waitingStopsAtTheCallersDeadline() {
    DescribeBatcher<String, String> slow = new DescribeBatcher<>("test", 500, Duration.ofSeconds(10),
        (ids, d) -> {
          try {
            Thread.sleep(2000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return Map.of();
        });
    assertThatThrownBy(() -> slow.get("vol-1", CallDeadline.after(Duration.ofMillis(100))))
        .isInstanceOfSatisfying(AwsCallException.class,
            e -> assertThat(e.error()).isInstanceOf(AwsCallError.DeadlinePassed.class));
  }

  @Test
  void theBatchCallIsBoundedByTheLatestDeadlineOfItsCallersNotAFixedTimeout() throws Exception {
    List<Duration> given = new CopyOnWriteArrayList<>();
    DescribeBatcher<String, String> batcher = new DescribeBatcher<>("DescribeVolumes by id", 500,
        Duration.ofMillis(200), (ids, d) -> {
          given.add(d.remaining());
          return describe(ids, d);
        });
    batcher.get("vol-0", CallDeadline.after(Duration.ofSeconds(5)));
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      // Both wait for the next batch; it may take as long as the later of them, 60 s: more than upstream's 30 s.
      var early = pool.submit(() -> batcher.get("vol-1", CallDeadline.after(Duration.ofSeconds(2))));
      var late = pool.submit(() -> batcher.get("vol-2", CallDeadline.after(Duration.ofSeconds(60))));
      assertThat(early.get()).hasValue("disk vol-1");
      assertThat(late.get()).hasValue("disk vol-2");
    }
    assertThat(given.getLast()).isBetween(Duration.ofSeconds(55), Duration.ofSeconds(60));
  }

  @Test
  void aDeadlineMissedWaitingForTheBatchNamesTheApi() {
    DescribeBatcher<String, String> frozen = new DescribeBatcher<>("DescribeVolumes by id", 500,
        Duration.ofMillis(50), (ids, d) -> {
          try {
            Thread.sleep(d.remaining());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          throw new AwsCallException(new AwsCallError.DeadlinePassed("EC2 DescribeVolumes did not answer"));
        });
    long start = System.nanoTime();
    assertThatThrownBy(() -> frozen.get("vol-1", CallDeadline.after(Duration.ofMillis(700))))
        .isInstanceOfSatisfying(AwsCallException.class, e -> {
          assertThat(e.error()).isInstanceOf(AwsCallError.DeadlinePassed.class);
          assertThat(e.getMessage()).contains("DescribeVolumes");
        });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
  }
}
