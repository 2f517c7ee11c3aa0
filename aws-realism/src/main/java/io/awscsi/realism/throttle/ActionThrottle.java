package io.awscsi.realism.throttle;

import io.awscsi.core.concurrent.TokenBucket;
import io.awscsi.realism.BucketLimit;
import io.awscsi.realism.ThrottleLimits;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/** One token bucket per service and API action, created on first use, as EC2 throttles per account, region and API. */
public final class ActionThrottle {

  private final Function<String, ThrottleLimits> limitsByService;
  private final Clock clock;
  private final Map<String, TokenBucket> buckets = new ConcurrentHashMap<>();

  /** The same limits for every service. */
  public ActionThrottle(ThrottleLimits limits, Clock clock) {
    this(service -> limits, clock);
  }

  /** Each service's own limits, e.g. {@code RealismProfile::throttleOf}. */
  public ActionThrottle(Function<String, ThrottleLimits> limitsByService, Clock clock) {
    this.limitsByService = limitsByService;
    this.clock = clock;
  }

  /** True when the call may proceed; false when its bucket is empty and the call must be refused. */
  public boolean tryAcquire(String service, String action) {
    ThrottleLimits limits = limitsByService.apply(service);
    if (!limits.enabled()) {
      return true;
    }
    return buckets.computeIfAbsent(service + ":" + action, key -> bucket(limits.limitFor(action))).tryAcquire();
  }

  private TokenBucket bucket(BucketLimit limit) {
    return new TokenBucket(limit.capacity(), limit.refillPerSecond(), () -> {
      Instant now = clock.instant(); // the realism layer's clock, which tests move by hand
      return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    });
  }

  /** Refills every bucket (a fresh account). */
  public void reset() {
    buckets.clear();
  }
}
