package io.awscsi.local;

import java.time.Duration;
import java.util.Map;

/** One step of the lifecycle walkthrough: the CSI call, its duration, the AWS calls it caused and its outcome. */
public record LifecycleStep(String driver, String name, String rpc, Duration duration, Map<String, Long> awsCalls,
    String outcome, String detail) {

  public LifecycleStep {
    awsCalls = Map.copyOf(awsCalls);
  }

  public boolean ok() {
    return outcome.equals("OK");
  }
}
