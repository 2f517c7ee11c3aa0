package io.awscsi.realism.proxy;

import io.awscsi.realism.ActionStats;
import io.awscsi.realism.CallStats;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Counts calls per service and action, with throttled calls and errors (by code) counted separately. */
public final class CallRecorder {

  private record Key(String service, String action) {}

  private static final class Counters {
    final LongAdder calls = new LongAdder();
    final LongAdder throttled = new LongAdder();
    final LongAdder errors = new LongAdder();
    final Map<String, LongAdder> codes = new ConcurrentHashMap<>();
  }

  private final Map<Key, Counters> counters = new ConcurrentHashMap<>();

  public void succeeded(String service, String action) {
    counters(service, action).calls.increment();
  }

  public void throttled(String service, String action) {
    Counters c = counters(service, action);
    c.calls.increment();
    c.throttled.increment();
  }

  public void failed(String service, String action, String code) {
    Counters c = counters(service, action);
    c.calls.increment();
    c.errors.increment();
    c.codes.computeIfAbsent(code, k -> new LongAdder()).increment();
  }

  public CallStats snapshot() {
    var services = new TreeMap<String, Map<String, ActionStats>>();
    counters.forEach((key, c) -> {
      var codes = new HashMap<String, Long>();
      c.codes.forEach((code, count) -> codes.put(code, count.sum()));
      services.computeIfAbsent(key.service(), s -> new TreeMap<>())
          .put(key.action(), new ActionStats(c.calls.sum(), c.throttled.sum(), c.errors.sum(), codes));
    });
    var frozen = new TreeMap<String, Map<String, ActionStats>>();
    services.forEach((service, actions) -> frozen.put(service, Map.copyOf(actions)));
    return new CallStats(frozen);
  }

  public void reset() {
    counters.clear();
  }

  private Counters counters(String service, String action) {
    return counters.computeIfAbsent(new Key(service, action), k -> new Counters());
  }
}
