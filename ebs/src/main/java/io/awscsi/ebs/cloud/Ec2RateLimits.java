package io.awscsi.ebs.cloud;

import io.awscsi.core.concurrent.TokenBucket;
/**
 * Client-side token buckets, one per EC2 action, sized under EC2's default per-action buckets (mutating actions:
 * burst 50, refill 5/s; Describe actions: burst 100, refill 20/s) so that this driver alone is not throttled.
 */
public record Ec2RateLimits(double mutatingBurst, double mutatingPerSecond, double describeBurst,
    double describePerSecond) {

  /** 90% of EC2's default buckets. */
  public static final Ec2RateLimits DEFAULT = new Ec2RateLimits(45, 4.5, 90, 18);

  public Ec2RateLimits {
    if (mutatingBurst < 1 || describeBurst < 1 || mutatingPerSecond <= 0 || describePerSecond <= 0) {
      throw new IllegalArgumentException("EC2 rate limits must be positive (burst >= 1)");
    }
  }

  TokenBucket bucketFor(Ec2Action action) {
    return action.mutating() ? new TokenBucket(mutatingBurst, mutatingPerSecond)
        : new TokenBucket(describeBurst, describePerSecond);
  }
}
