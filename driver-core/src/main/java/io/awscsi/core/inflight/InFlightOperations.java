package io.awscsi.core.inflight;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CallBudget;
import io.awscsi.core.provider.WorkProgress;
import io.grpc.Context;
import io.grpc.Deadline;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The controller's operations in flight, at most one per key (a volume name, a volume id, volume id + node id, a
 * snapshot name), each running as a task of its own that outlives the call which started it, so that the caller's
 * retry joins the work instead of starting it over.
 *
 * <p>Why: a sidecar calls with a short deadline (the chart's {@code --timeout}, 15 s) and repeats the call after a
 * backoff until it is answered OK. When the work takes longer than one deadline (EC2's rate limit queues a burst of a
 * thousand CreateVolume calls for minutes), work bound to the caller's deadline is given up and started over at the
 * back of the queue by each retry, and some callers never win. Here the first accepted call starts the work with its
 * own budget ({@link Settings#workBudget}, the deadline every wait of the work derives from, through
 * {@link CallBudget}); each caller waits for it until shortly before its own deadline and is then answered
 * DEADLINE_EXCEEDED naming what the work waits on and its last failure ({@link WorkProgress}, which also ends each
 * attempt of a cloud call by the waiting caller's deadline) and saying that the work continues; a call with the same key, operation and arguments joins the
 * running work, and one that arrives after the work succeeded gets its answer for {@link Settings#keepResult}, unless
 * that answer describes a state still changing (a snapshot not yet ready to use: the snapshotter repeats CreateSnapshot
 * to learn when it is, and a kept "not ready" would hide its completion for that long). A call
 * with the same key and another operation or other arguments is answered ABORTED while the work runs, as the CSI spec
 * asks (upstream answers ABORTED to every second call, even an identical one). A failure is answered to the callers
 * waiting then and not kept: the next call starts the work again.
 */
public final class InFlightOperations {

  private static final Logger LOG = LogManager.getLogger(InFlightOperations.class);

  /**
   * @param workBudget how long one operation's work may run, whoever waits for it (its waits on the cloud, rate limit
   *     and state polling included), so that nothing runs forever; a caller whose own deadline is longer (the
   *     attacher's 6 min) gives the work that instead
   * @param keepResult how long a success is kept for a retry that arrives after the work finished (it must not
   *     outlive what it describes: another operation on the key replaces it at once)
   */
  public record Settings(Duration workBudget, Duration keepResult) {

    /**
     * Fifteen minutes of work: EC2's CreateVolume bucket refills 5 tokens a second, so 3,000 calls sent at once
     * (several clusters' provisioners) queue for 600 s; with a 5 min budget the rate limiter refused at once every
     * call whose wait passed it, and those callers backed off exponentially (each refusal doubling the sidecar's wait,
     * up to its 30 min) and lost their place: in a run of 3,000 at once 869 lifecycles sat in their backoff after
     * the bucket's queue had emptied. A success is kept as long: a caller answered DEADLINE_EXCEEDED while the work
     * ran has a backoff of up to about half the time it waited, and a result forgotten before its retry (1 min: 713 creates
     * done twice in that run) makes the retry start the work again, a second EC2 call and its token.
     */
    public static final Settings DEFAULT = new Settings(Duration.ofMinutes(15), Duration.ofMinutes(15));

    public Settings {
      if (workBudget.isNegative() || workBudget.isZero() || keepResult.isNegative()) {
        throw new IllegalArgumentException("an operation's work budget must be positive and its result kept >= 0, "
            + "got " + workBudget + " and " + keepResult);
      }
    }
  }

  /** One operation on a key: what it is (to tell a retry from another call) and its outcome. */
  private static final class Operation {
    final String name;
    final Object arguments;
    final CompletableFuture<Object> outcome = new CompletableFuture<>();
    /** What the work waits on now and its last failure, quoted to a caller answered before the work finished. */
    final WorkProgress progress = new WorkProgress();
    /** Whether a success may answer a repeat that arrives after the work finished. */
    final Predicate<Object> keepable;
    volatile Thread worker;
    /** The timer that forgets the kept success; cancelled when the success is forgotten or replaced before. */
    volatile ScheduledFuture<?> forget;

    Operation(String name, Object arguments, Predicate<Object> keepable) {
      this.name = name;
      this.arguments = arguments;
      this.keepable = keepable;
    }

    boolean sameCall(String otherName, Object otherArguments) {
      return name.equals(otherName) && Objects.equals(arguments, otherArguments);
    }

    boolean succeeded() {
      return outcome.isDone() && !outcome.isCompletedExceptionally();
    }

    /**
     * Drops the timer (and with it the timer's hold on this operation, its request and answer), so that an answer
     * forgotten or replaced early is not kept in memory until the keep time passes.
     */
    void cancelForget() {
      ScheduledFuture<?> timer = forget;
      if (timer != null) {
        timer.cancel(false);
      }
    }
  }

  private final Settings settings;
  private final Map<String, Operation> operations = new ConcurrentHashMap<>();
  /**
   * Ends each work's gRPC context at its budget and forgets kept results; one daemon thread. A timer cancelled because
   * its work finished leaves the queue at once, so finished work keeps nothing for the rest of its budget.
   */
  private final ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, r -> {
    Thread t = new Thread(r, "in-flight-operations-timer");
    t.setDaemon(true);
    return t;
  });

  public InFlightOperations(Settings settings) {
    this.settings = settings;
    timers.setRemoveOnCancelPolicy(true);
  }

  public InFlightOperations() {
    this(Settings.DEFAULT);
  }

  /**
   * Runs {@code work} for the call, or joins the same call's work already running or just finished, and waits for it
   * within the caller's deadline (less the margin to answer, {@link CallBudget}).
   *
   * @param key what the operation is about; one operation per key at a time
   * @param operation the CSI method, for messages and to tell calls apart
   * @param arguments what the call asks (its request message): only an equal call joins
   * @throws DriverException ABORTED when another operation runs on the key, DEADLINE_EXCEEDED when the work did not
   *     finish before the caller's deadline (it continues), or the work's own failure
   */
  public <T> T run(String key, String operation, Object arguments, Supplier<T> work) {
    return run(key, operation, arguments, work, result -> true);
  }

  /**
   * As {@link #run(String, String, Object, Supplier)}, with a success kept for a late repeat only when {@code isFinal}
   * holds for it: a result that describes a state still changing (a snapshot pending) is answered to the callers
   * waiting for the work, and a repeat after that runs the work again, which reads the state anew.
   */
  @SuppressWarnings("unchecked")
  public <T> T run(String key, String operation, Object arguments, Supplier<T> work, Predicate<? super T> isFinal) {
    Instant budgetEnd = CallBudget.deadline(settings.workBudget());
    Predicate<Object> keepable = (Predicate<Object>) isFinal;
    Operation joined = join(key, operation, arguments, (Supplier<Object>) work, budgetEnd, keepable);
    // Until half the margin before the deadline: an attempt of a cloud call that does not answer ends at budgetEnd
    // (WorkProgress.attemptDeadline), so by then the work has said what did not answer.
    Duration wait = CallBudget.untilAnswer(settings.workBudget());
    try {
      return (T) joined.outcome.get(wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      String doing = joined.progress.describe();
      throw DriverException.deadlineExceeded(operation + " of " + key + " did not finish before this call's "
          + "deadline" + (doing.isEmpty() ? "" : " (" + doing + ")")
          + "; the work continues, and a retry with the same arguments joins it");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r
          : DriverException.internal(operation + " of " + key + " failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      // Only the server's shutdown interrupts a handler: the driver is stopping, so is the work.
      Thread worker = joined.worker;
      if (worker != null) {
        worker.interrupt();
      }
      Thread.currentThread().interrupt();
      throw DriverException.unavailable(operation + " of " + key + ": interrupted (the driver is stopping)");
    }
  }

  /**
   * Forgets the kept successes {@code stale} matches (by key and result): what they describe was just undone under
   * another key (a deleted volume's CreateVolume answer, its publishes), so that a repeat of the call does the work
   * again instead of answering what is no longer true.
   */
  public void forgetResults(BiPredicate<String, Object> stale) {
    operations.entrySet().removeIf(e -> {
      Operation op = e.getValue();
      if (op.succeeded() && stale.test(e.getKey(), op.outcome.getNow(null))) {
        op.cancelForget();
        return true;
      }
      return false;
    });
  }

  /** Whether an operation on {@code key} is running now. */
  public boolean isRunning(String key) {
    Operation current = operations.get(key);
    return current != null && !current.outcome.isDone();
  }

  private Operation join(String key, String operation, Object arguments, Supplier<Object> work,
      Instant budgetEnd, Predicate<Object> keepable) {
    Operation[] started = new Operation[1];
    Operation current = operations.compute(key, (k, existing) -> {
      if (existing != null && existing.sameCall(operation, arguments)
          && (!existing.outcome.isDone() || existing.succeeded())) {
        return existing;
      }
      if (existing != null && !existing.outcome.isDone()) {
        return existing;
      }
      if (existing != null) {
        existing.cancelForget();
      }
      started[0] = new Operation(operation, arguments, keepable);
      return started[0];
    });
    if (current != started[0] && !current.sameCall(operation, arguments)) {
      throw DriverException.aborted("an operation on " + key + " (" + current.name + ") is already in progress; "
          + operation + " will be retried by the caller");
    }
    // Before the work starts, so that its first cloud call's attempt ends by this caller's deadline.
    current.progress.callerWaits(budgetEnd);
    if (started[0] != null) {
      start(key, started[0], work);
    }
    return current;
  }

  /** The work budget, or the calling thread's gRPC deadline when that is longer: never less than the caller had. */
  private Duration budget() {
    Deadline caller = Context.current().getDeadline();
    Duration left = caller == null ? Duration.ZERO : Duration.ofNanos(caller.timeRemaining(TimeUnit.NANOSECONDS));
    return left.compareTo(settings.workBudget()) > 0 ? left : settings.workBudget();
  }

  /**
   * Runs the work on a virtual thread in a gRPC context of its own: the caller's values, none of its cancellation,
   * and the work's budget as its deadline, which {@link CallBudget} gives every wait of the work.
   */
  private void start(String key, Operation op, Supplier<Object> work) {
    Context.CancellableContext context = op.progress.attachTo(Context.current().fork())
        .withDeadlineAfter(budget().toNanos(), TimeUnit.NANOSECONDS, timers);
    op.worker = Thread.ofVirtual().name(op.name + " " + key).unstarted(() -> {
      Object result;
      try {
        result = context.call(work::get);
        op.outcome.complete(result);
      } catch (Throwable failure) {
        operations.remove(key, op);
        op.outcome.completeExceptionally(failure);
        if (failure instanceof VirtualMachineError vme) {
          throw vme;
        }
        return;
      } finally {
        context.cancel(null);
        op.worker = null; // a kept answer does not keep its finished thread
      }
      if (settings.keepResult().isZero() || !op.keepable.test(result)) {
        operations.remove(key, op);
      } else {
        op.forget = timers.schedule(() -> operations.remove(key, op), settings.keepResult().toNanos(),
            TimeUnit.NANOSECONDS);
        if (operations.get(key) != op) {
          op.cancelForget(); // forgotten or replaced before its timer was set
        }
      }
      LOG.debug("{} of {} finished", op.name, key);
    });
    op.worker.start();
  }
}
