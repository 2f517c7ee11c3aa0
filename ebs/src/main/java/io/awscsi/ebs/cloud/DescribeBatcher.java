package io.awscsi.ebs.cloud;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.provider.WorkProgress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Merges lookups by key from concurrent operations into one Describe call. Calls of one batcher are at least
 * {@code maxDelay} apart (upstream's 500 ms, which keeps each batcher at 2 calls/s however many operations wait),
 * except that a batch holding {@code maxEntries} keys goes at once; callers asking for the same key share one slot
 * and one answer. Unlike upstream, a lookup that arrives when the batcher has been idle for {@code maxDelay} is sent
 * at once instead of waiting out the delay: under load this batches as much as upstream, and alone it adds no
 * latency.
 *
 * <p>EC2 fails a whole DescribeVolumes/Instances/Snapshots call when one id does not exist. Such a batch is split in
 * halves until the bad ids are isolated (a few calls instead of one per id); ids found missing are remembered for a
 * while and looked up alone, so they cannot spoil later batches. A key that EC2 finds again leaves that list.
 *
 * @param <K> the key (an id or a tag value)
 * @param <V> what one key resolves to; a key absent from the fetch result is "not found"
 */
public final class DescribeBatcher<K, V> {

  /** One Describe call for a set of keys; keys missing from the answer do not exist. */
  @FunctionalInterface
  public interface Fetch<K, V> {
    Map<K, V> fetch(Set<K> keys, CallDeadline deadline);
  }

  /**
   * The most keys remembered as missing. Past it, expired ones are dropped, and if that is not enough a missing key
   * is simply not remembered (it then spoils at most the batches it is in, which are split as before).
   */
  static final int MAX_BAD_KEYS = 4096;

  /** How long a batch call may take at most; within it, as long as the latest deadline of the callers waiting. */
  static final Duration BATCH_TIMEOUT = Duration.ofMinutes(5);

  private final String name;
  private final int maxEntries;
  private final Duration maxDelay;
  private final Fetch<K, V> fetch;
  private final Duration badKeyMemory;
  private final LongSupplier nanoClock;

  private final Object lock = new Object();
  private Map<K, CompletableFuture<Optional<V>>> pending = new LinkedHashMap<>();
  /** The latest deadline of the callers waiting on {@link #pending}: the batch call is bounded by it. */
  private Instant pendingDeadline = Instant.MIN;
  private long generation;
  private long lastSent = Long.MIN_VALUE / 2;
  private final Map<K, Long> likelyBadUntil = new ConcurrentHashMap<>();
  private final LongAdder fetchCalls = new LongAdder();

  public DescribeBatcher(String name, int maxEntries, Duration maxDelay, Duration badKeyMemory, Fetch<K, V> fetch,
      LongSupplier nanoClock) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries must be >= 1");
    }
    this.name = name;
    this.maxEntries = maxEntries;
    this.maxDelay = maxDelay;
    this.badKeyMemory = badKeyMemory;
    this.fetch = fetch;
    this.nanoClock = nanoClock;
  }

  public DescribeBatcher(String name, int maxEntries, Duration maxDelay, Fetch<K, V> fetch) {
    this(name, maxEntries, maxDelay, Duration.ofHours(1), fetch, System::nanoTime);
  }

  /** Looks {@code key} up in the next batch and waits for the answer until the deadline. */
  public Optional<V> get(K key, CallDeadline deadline) {
    if (isLikelyBad(key)) {
      return lookUpAlone(key, deadline);
    }
    CompletableFuture<Optional<V>> answer;
    Batch<K, V> ready = null;
    long armGeneration = -1;
    long wait = 0;
    synchronized (lock) {
      answer = pending.get(key);
      // An operation's work (longer than its callers) bounds the batch call by its waiting caller's deadline, so
      // that a DescribeVolumes without an answer is found out then, as it was on the caller's thread.
      Instant until = WorkProgress.attemptDeadline(deadline.at());
      if (until.isAfter(pendingDeadline)) {
        pendingDeadline = until;
      }
      if (answer == null) {
        answer = new CompletableFuture<>();
        pending.put(key, answer);
        long now = nanoClock.getAsLong();
        wait = lastSent + maxDelay.toNanos() - now;
        if (pending.size() >= maxEntries || (pending.size() == 1 && wait <= 0)) {
          ready = takeBatch(now);
        } else if (pending.size() == 1) {
          armGeneration = generation;
        }
      }
    }
    if (ready != null) {
      Batch<K, V> batch = ready;
      Thread.ofVirtual().name("describe-batch-" + name).start(() -> run(batch));
    } else if (armGeneration >= 0) {
      long armed = armGeneration;
      Duration pause = Duration.ofNanos(wait);
      Thread.ofVirtual().name("describe-batch-" + name).start(() -> flushLater(armed, pause));
    }
    return await(answer, deadline, key);
  }

  /** How many Describe calls this batcher has made (for tests and the benchmark). */
  public long fetchCalls() {
    return fetchCalls.sum();
  }

  public boolean isLikelyBad(K key) {
    Long until = likelyBadUntil.get(key);
    if (until == null) {
      return false;
    }
    if (until - nanoClock.getAsLong() <= 0) {
      likelyBadUntil.remove(key, until);
      return false;
    }
    return true;
  }

  /** The keys of one Describe call and the latest deadline of the callers waiting for them. */
  private record Batch<K, V>(Map<K, CompletableFuture<Optional<V>>> answers, Instant deadline) {}

  private Batch<K, V> takeBatch(long now) {
    Batch<K, V> batch = new Batch<>(pending, pendingDeadline);
    pending = new LinkedHashMap<>();
    pendingDeadline = Instant.MIN;
    generation++;
    lastSent = now;
    return batch;
  }

  private void flushLater(long armedGeneration, Duration pause) {
    try {
      Thread.sleep(pause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Batch<K, V> batch = null;
    synchronized (lock) {
      if (generation == armedGeneration && !pending.isEmpty()) {
        batch = takeBatch(nanoClock.getAsLong());
      }
    }
    if (batch != null) {
      run(batch);
    }
  }

  private void run(Batch<K, V> batch) {
    // The call serves every caller in it, so it may take as long as the last of them waits, never longer.
    CallDeadline deadline = CallDeadline.after(BATCH_TIMEOUT);
    if (batch.deadline().isBefore(deadline.at())) {
      deadline = new CallDeadline(batch.deadline());
    }
    try {
      resolve(new ArrayList<>(batch.answers().keySet()), batch.answers(), deadline);
    } catch (RuntimeException unexpected) {
      batch.answers().values().forEach(f -> f.completeExceptionally(unexpected));
    }
  }

  /** Fetches {@code keys}; on "not found" splits them in halves until each bad key stands alone. */
  private void resolve(List<K> keys, Map<K, CompletableFuture<Optional<V>>> answers, CallDeadline deadline) {
    try {
      Map<K, V> found = fetchOnce(new HashSet<>(keys), deadline);
      for (K key : keys) {
        V value = found.get(key);
        if (value != null) {
          likelyBadUntil.remove(key);
        }
        answers.get(key).complete(Optional.ofNullable(value));
      }
    } catch (AwsCallException e) {
      if (!(e.error() instanceof AwsCallError.NotFound)) {
        keys.forEach(k -> answers.get(k).completeExceptionally(e));
      } else if (keys.size() == 1) {
        K bad = keys.getFirst();
        rememberBad(bad);
        answers.get(bad).complete(Optional.empty());
      } else {
        int half = keys.size() / 2;
        resolve(keys.subList(0, half), answers, deadline);
        resolve(keys.subList(half, keys.size()), answers, deadline);
      }
    }
  }

  private void rememberBad(K key) {
    long now = nanoClock.getAsLong();
    if (likelyBadUntil.size() >= MAX_BAD_KEYS) {
      likelyBadUntil.values().removeIf(until -> until - now <= 0);
      if (likelyBadUntil.size() >= MAX_BAD_KEYS) {
        return;
      }
    }
    likelyBadUntil.put(key, now + badKeyMemory.toNanos());
  }

  /** Keys remembered as missing (for tests). */
  int badKeyCount() {
    return likelyBadUntil.size();
  }

  private Map<K, V> fetchOnce(Set<K> keys, CallDeadline deadline) {
    fetchCalls.increment();
    return fetch.fetch(keys, deadline);
  }

  private Optional<V> lookUpAlone(K key, CallDeadline deadline) {
    try {
      V value = fetchOnce(Set.of(key), deadline).get(key);
      if (value != null) {
        likelyBadUntil.remove(key);
      }
      return Optional.ofNullable(value);
    } catch (AwsCallException e) {
      if (e.error() instanceof AwsCallError.NotFound) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private Optional<V> await(CompletableFuture<Optional<V>> answer, CallDeadline deadline, K key) {
    try (var waiting = WorkProgress.waitingOn("the batched EC2 " + name + " lookup of " + key)) {
      return answer.get(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new AwsCallException(new AwsCallError.DeadlinePassed(name + " lookup of " + key
          + ": EC2 did not answer the batched call before the call's deadline"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AwsCallException(new AwsCallError.Interrupted(name + " lookup of " + key + ": interrupted"));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AwsCallException ce) {
        throw new AwsCallException(ce.operation(), ce.error(), null, ce);
      }
      throw new AwsCallException(null, new AwsCallError.Unexpected("BatchFailed", name + " lookup of " + key
          + " failed: " + e.getCause()), null, e.getCause());
    }
  }
}
