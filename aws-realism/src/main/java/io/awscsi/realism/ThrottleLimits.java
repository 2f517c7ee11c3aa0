package io.awscsi.realism;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * API request throttling: one token bucket per service and action. Non-mutating actions (Describe, Get, List) share
 * one limit, mutating actions another, and single actions may be overridden.
 *
 * @param enabled false turns throttling off entirely
 * @param nonMutating bucket of each Describe/Get/List action
 * @param mutating bucket of each other action
 * @param perAction overrides by action name (for example {@code "CreateVolume"})
 */
public record ThrottleLimits(boolean enabled, BucketLimit nonMutating, BucketLimit mutating,
                             Map<String, BucketLimit> perAction) {

  public ThrottleLimits {
    Objects.requireNonNull(nonMutating, "nonMutating");
    Objects.requireNonNull(mutating, "mutating");
    perAction = Map.copyOf(perAction);
  }

  /** EC2's published defaults: Describe* bucket 100 refilled at 20/s, mutating actions bucket 50 refilled at 5/s. */
  public static ThrottleLimits ec2Defaults() {
    return new ThrottleLimits(true, new BucketLimit(100, 20), new BucketLimit(50, 5), Map.of());
  }

  /**
   * EFS's buckets. AWS publishes no EFS API rates (the EFS quotas page lists none; the CreateAccessPoint reference
   * only says calls in quick succession near the access-point quota are throttled), so EC2's published per-action
   * shape stands in for them: each Describe action bucket 100 refilled at 20/s, each mutating action (CreateAccessPoint,
   * DeleteAccessPoint, TagResource, ...) bucket 50 refilled at 5/s, one bucket per action as EC2 has.
   */
  public static ThrottleLimits efsDefaults() {
    return new ThrottleLimits(true, new BucketLimit(100, 20), new BucketLimit(50, 5), Map.of());
  }

  public static ThrottleLimits off() {
    return new ThrottleLimits(false, new BucketLimit(100, 20), new BucketLimit(50, 5), Map.of());
  }

  public ThrottleLimits withAction(String action, BucketLimit limit) {
    var overrides = new HashMap<>(perAction);
    overrides.put(action, limit);
    return new ThrottleLimits(enabled, nonMutating, mutating, overrides);
  }

  /** The bucket an action gets. */
  public BucketLimit limitFor(String action) {
    BucketLimit override = perAction.get(action);
    if (override != null) {
      return override;
    }
    return isNonMutating(action) ? nonMutating : mutating;
  }

  public static boolean isNonMutating(String action) {
    return action.startsWith("Describe") || action.startsWith("Get") || action.startsWith("List");
  }
}
