package io.awscsi.realism;

import java.util.Map;

/**
 * Calls of one API action through the proxy.
 *
 * @param calls every request received, throttled and failed ones included
 * @param throttled requests refused by the token bucket
 * @param errors other error answers (4xx/5xx), injected faults included
 * @param errorCodes those errors by AWS error code
 */
public record ActionStats(long calls, long throttled, long errors, Map<String, Long> errorCodes) {

  public static final ActionStats NONE = new ActionStats(0, 0, 0, Map.of());

  public ActionStats {
    errorCodes = Map.copyOf(errorCodes);
  }
}
