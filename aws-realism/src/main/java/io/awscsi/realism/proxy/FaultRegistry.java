package io.awscsi.realism.proxy;

import io.awscsi.realism.ApiRequest;
import io.awscsi.realism.AwsError;
import io.awscsi.realism.Fault;
import io.awscsi.realism.InjectedFault;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Injected faults, checked in the order they were added; a fault with a count is removed once used up. */
public final class FaultRegistry {

  private final CopyOnWriteArrayList<Entry> entries = new CopyOnWriteArrayList<>();

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
  }
}
