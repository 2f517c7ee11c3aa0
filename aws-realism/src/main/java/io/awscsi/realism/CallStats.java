package io.awscsi.realism;

import java.util.Map;
import java.util.function.ToLongFunction;

/** A snapshot of the proxy's call accounting: service ({@code ec2}, {@code efs}) to action to counts. */
public record CallStats(Map<String, Map<String, ActionStats>> services) {

  public CallStats {
    services = Map.copyOf(services);
  }

  public ActionStats action(String service, String action) {
    return services.getOrDefault(service, Map.of()).getOrDefault(action, ActionStats.NONE);
  }

  public long calls(String service, String action) {
    return action(service, action).calls();
  }

  public long totalCalls() {
    return sum(ActionStats::calls);
  }

  public long totalThrottled() {
    return sum(ActionStats::throttled);
  }

  public long totalErrors() {
    return sum(ActionStats::errors);
  }

  private long sum(ToLongFunction<ActionStats> field) {
    return services.values().stream().flatMap(actions -> actions.values().stream()).mapToLong(field).sum();
  }
}
