package io.awscsi.core.provider;

import io.grpc.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * What a controller operation's work (which outlives its callers, {@code InFlightOperations}) is waiting on now and
 * the last failure it met, published by the work for the callers that wait on it, and the time an attempt of a cloud
 * call may take.
 *
 * <p>Why: a caller answered at its deadline while the work continues must still be told what did not answer (an AWS
 * API frozen, a listing another call makes), as it was when the work ran on the caller's own thread; and a cloud call
 * that does not answer must be found out (readiness, the caller's answer) at the waiting caller's deadline, not at the
 * end of the work's much longer budget. So the work's budget bounds its waits in all (the rate limit's queue, retries),
 * while each attempt of a cloud call ends by the latest deadline of the callers waiting ({@link #attemptDeadline}).
 *
 * <p>The work's gRPC context carries it; outside an operation's work (node calls, lookups on the caller's thread)
 * every method here does nothing and {@link #attemptDeadline} is the deadline given.
 */
public final class WorkProgress {

  private static final Context.Key<WorkProgress> KEY = Context.key("awscsi-work-progress");

  /**
   * The least time an attempt gets when a caller waiting is about to give up: a cloud call that is answering needs
   * this much, and cutting it shorter would only send it again (and say "no answer" of a service that answers).
   */
  static final Duration MIN_ATTEMPT = Duration.ofSeconds(1);

  /** Something the work waits on, since when; {@code outer} is what it waited on before (waits nest). */
  private record Wait(String what, Instant since, Wait outer) {}

  private record Failure(String message, Instant at) {}

  private final Object lock = new Object();
  private Instant callerDeadline = Instant.MIN;
  private Duration callerBudget = Duration.ZERO;
  private volatile Wait current;
  private volatile Failure lastFailure;

  /** The progress of the work running in the current gRPC context, or null outside an operation's work. */
  private static WorkProgress current() {
    return KEY.get();
  }

  /** {@code context} with this progress in it, for the work to run in. */
  public Context attachTo(Context context) {
    return context.withValue(KEY, this);
  }

  /**
   * A caller waits for the work until {@code budgetEnd} (its deadline less the margin to answer): attempts of cloud
   * calls started while it waits end by then, and when no caller waits they get as long as a caller had.
   */
  public void callerWaits(Instant budgetEnd) {
    synchronized (lock) {
      if (budgetEnd.isAfter(callerDeadline)) {
        callerDeadline = budgetEnd;
      }
      Duration budget = Duration.between(Instant.now(), budgetEnd);
      if (budget.compareTo(callerBudget) > 0) {
        callerBudget = budget;
      }
    }
  }

  /**
   * The instant an attempt of a cloud call started now must end by, within {@code workDeadline}: the latest deadline
   * of the callers waiting (at least {@link #MIN_ATTEMPT} from now), or, when none waits, as long as the longest
   * caller had. Outside an operation's work: {@code workDeadline}, the caller's own.
   */
  public static Instant attemptDeadline(Instant workDeadline) {
    WorkProgress progress = current();
    if (progress == null) {
      return workDeadline;
    }
    Instant now = Instant.now();
    Instant cap;
    synchronized (progress.lock) {
      cap = progress.callerDeadline.isAfter(now.plus(MIN_ATTEMPT)) ? progress.callerDeadline
          : now.plus(progress.callerBudget.compareTo(MIN_ATTEMPT) > 0 ? progress.callerBudget : MIN_ATTEMPT);
    }
    return cap.isBefore(workDeadline) ? cap : workDeadline;
  }

  /** A published wait; closing it says the wait is over. */
  public interface Waiting extends AutoCloseable {
    @Override
    void close();
  }

  private static final Waiting NONE = () -> { };

  /**
   * Publishes that the current operation's work now waits on {@code what} (e.g. "EFS DescribeAccessPoints of fs-1,
   * sent"), until the returned handle is closed.
   */
  public static Waiting waitingOn(String what) {
    WorkProgress progress = current();
    if (progress == null) {
      return NONE;
    }
    Wait wait = new Wait(what, Instant.now(), progress.current);
    progress.current = wait;
    return () -> {
      if (progress.current == wait) {
        progress.current = wait.outer();
      }
    };
  }

  /** Publishes the latest failure the current operation's work met (it may retry), in words that name the call. */
  public static void failed(String message) {
    WorkProgress progress = current();
    if (progress != null) {
      progress.lastFailure = new Failure(message, Instant.now());
    }
  }

  /**
   * What the work is doing, for a caller answered before it finished, e.g. "waiting 7.2 s on EFS DescribeAccessPoints
   * of fs-1 (sent, no answer yet); the last failure, 0.3 s ago: ...", or empty when nothing was published.
   */
  public String describe() {
    Instant now = Instant.now();
    Wait wait = current;
    Failure failure = lastFailure;
    StringBuilder text = new StringBuilder();
    if (wait != null) {
      text.append("waiting ").append(seconds(Duration.between(wait.since(), now))).append(" on ").append(wait.what());
    }
    if (failure != null) {
      text.append(text.isEmpty() ? "" : "; ").append("the last failure, ")
          .append(seconds(Duration.between(failure.at(), now))).append(" ago: ").append(failure.message());
    }
    return text.toString();
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
