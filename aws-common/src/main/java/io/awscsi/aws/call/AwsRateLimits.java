package io.awscsi.aws.call;

import io.awscsi.core.concurrent.TokenBucket;

/**
 * Client-side token buckets, one per API action, shaped like EC2's default per-action buckets (mutating actions:
 * burst 50, refill 5/s; Describe actions: burst 100, refill 20/s) so that this driver alone is not throttled. They
 * refill at EC2's own rate, because the refill is what bounds a long run (at 90% of it, 1,000 lifecycles took 11%
 * longer than EC2 allows); the burst is 10% smaller, because a call reaches EC2's bucket a round trip after it left
 * this one: the spare tokens absorb up to a second of that spread, so that calls sent in step with EC2's refill
 * cannot arrive bunched and be throttled. AWS publishes no EFS API rates, so EC2's stand in for EFS: if EFS's real
 * buckets are smaller, its throttling answers empty the bucket here and the calls wait for the refill.
 */
public record AwsRateLimits(double mutatingBurst, double mutatingPerSecond, double describeBurst,
    double describePerSecond) {

  /** EC2's default refill rates, 90% of its bursts. */
  public static final AwsRateLimits DEFAULT = new AwsRateLimits(45, 5, 90, 20);

  public AwsRateLimits {
    if (mutatingBurst < 1 || describeBurst < 1 || mutatingPerSecond <= 0 || describePerSecond <= 0) {
      throw new IllegalArgumentException("API rate limits must be positive (burst >= 1)");
    }
  }

  TokenBucket bucketFor(AwsAction action) {
    return action.mutating() ? new TokenBucket(mutatingBurst, mutatingPerSecond)
        : new TokenBucket(describeBurst, describePerSecond);
  }
}
