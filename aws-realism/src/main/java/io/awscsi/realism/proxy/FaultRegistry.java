package io.awscsi.realism.proxy;

import io.awscsi.realism.ApiRequest;
import io.awscsi.realism.AwsError;
import io.awscsi.realism.Fault;
import io.awscsi.realism.InjectedFault;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Injected faults, checked in the order they were added; a fault with a count is removed once used up. Freezes hold
 * matching calls without an answer (an API that stopped answering) until they are lifted.
 */
public final class FaultRegistry {

  /** The longest a frozen call is held, so a forgotten freeze cannot keep a proxy thread forever. */
  static final Duration MAX_FREEZE = Duration.ofMinutes(10);

  private final CopyOnWriteArrayList<Entry> entries = new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<Freeze> freezes = new CopyOnWriteArrayList<>();

  /**
   * Calls of {@code service}/{@code action} ("*": every action) get no answer while this is in place; then they are
   * dropped, or, for a stall ({@code serveAfter}), served as usual (an API that stopped answering for a while).
   */
  private final class Freeze implements InjectedFault {
    private final String service;
    private final String action;
    private final boolean serveAfter;
    private final CountDownLatch lifted = new CountDownLatch(1);
    private final AtomicInteger held = new AtomicInteger();

    Freeze(String service, String action, boolean serveAfter) {
      this.service = service;
      this.action = action;
      this.serveAfter = serveAfter;
    }

    boolean matches(ApiRequest request) {
      return service.equals(request.service()) && (action.equals("*") || action.equals(request.action()));
    }

    @Override
    public int hits() {
      return held.get();
    }

    @Override
    public void remove() {
      freezes.remove(this);
      lifted.countDown();
    }
  }

  private final class Entry implements InjectedFault {
    private final Fault fault;
    private final AtomicInteger hits = new AtomicInteger();

    Entry(Fault fault) {
      this.fault = fault;
    }

    /** Takes one use of the fault; false when another caller used the last one. */
    boolean take() {
      int used = hits.incrementAndGet();
      if (fault.times() > 0 && used >= fault.times()) {
        entries.remove(this);
      }
      return fault.times() == 0 || used <= fault.times();
    }

    @Override
    public int hits() {
      return Math.min(hits.get(), fault.times() == 0 ? Integer.MAX_VALUE : fault.times());
    }

    @Override
    public void remove() {
      entries.remove(this);
    }
  }

  /** Holds matching calls unanswered until the returned handle is closed; see {@link #holdWhileFrozen}. */
  public InjectedFault freeze(String service, String action) {
    var freeze = new Freeze(service, action, false);
    freezes.add(freeze);
    return freeze;
  }

  /**
   * Holds matching calls unanswered for {@code length} (or until the handle is closed), then lets each go on to be
   * served as usual: an API frozen for some seconds that answers normally afterwards (the soak's "EFS API frozen").
   * Calls that arrive after it ended are not held.
   */
  public InjectedFault stall(String service, String action, Duration length) {
    if (length.isNegative() || length.isZero() || length.compareTo(MAX_FREEZE) > 0) {
      throw new IllegalArgumentException("a stall lasts more than 0 s and at most " + MAX_FREEZE.toSeconds()
          + " s, got " + length.toSeconds() + " s");
    }
    var stall = new Freeze(service, action, true);
    freezes.add(stall);
    // Ends by itself: a process outside (the cluster suite) that set it need not come back to lift it.
    Thread.ofVirtual().name("realism-stall-" + service + "-" + action).start(() -> {
      try {
        stall.lifted.await(length.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      stall.remove();
    });
    return stall;
  }

  /**
   * Blocks while a freeze matches {@code request}. Returns the error to answer once it is lifted: the caller has
   * long given up, so the held call never reaches the service (no late side effect), as a request lost in transit.
   * After a stall, nothing: the call goes on to be served.
   */
  public Optional<AwsError> holdWhileFrozen(ApiRequest request) {
    for (Freeze freeze : freezes) {
      if (freeze.matches(request)) {
        freeze.held.incrementAndGet();
        try {
          freeze.lifted.await(MAX_FREEZE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        if (freeze.serveAfter) {
          return Optional.empty();
        }
        return Optional.of(AwsError.of(503, "ServiceUnavailable", "the realism layer held this "
            + request.action() + " call unanswered (frozen API) and dropped it"));
      }
    }
    return Optional.empty();
  }

  public InjectedFault add(Fault fault) {
    var entry = new Entry(fault);
    entries.add(entry);
    return entry;
  }

  public Optional<AwsError> match(ApiRequest request) {
    for (Entry entry : entries) {
      if (entry.fault.matches(request) && entry.take()) {
        return Optional.of(entry.fault.error());
      }
    }
    return Optional.empty();
  }

  public void clear() {
    entries.clear();
    freezes.forEach(Freeze::remove);
  }
}
