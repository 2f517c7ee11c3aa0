package io.awscsi.ebs.controller;

import io.awscsi.aws.call.AwsRateLimits;
import io.awscsi.aws.call.AwsRetryPolicy;
import io.awscsi.aws.tags.TagLimits;
import io.awscsi.ebs.cloud.DescribeBatching;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Settings of the EBS controller, mostly upstream's controller flags.
 *
 * @param region the EC2 region (AWS_REGION or instance metadata); informational, the Ec2Client carries it
 * @param extraTags {@code --extra-tags k=v,...}: put on every volume and snapshot (parsed by the launcher)
 * @param k8sTagClusterId {@code --k8s-tag-cluster-id}: adds the cluster ownership tags; empty for none
 * @param warnOnInvalidTag {@code --warn-on-invalid-tag}: drop invalid user tags with a warning instead of failing
 * @param modifyVolumeRequestHandlerTimeout {@code --modify-volume-request-handler-timeout} (default 2 s): how long
 *     expand and modify requests for one volume are gathered into one ModifyVolume
 * @param batching {@code --batching}: merge Describe lookups of concurrent operations (default on, 500 ms)
 * @param rateLimits client-side token buckets per EC2 action
 * @param retryPolicy backoff for throttled and failed EC2 requests
 * @param stuckAttachingTimeout an attachment in {@code attaching} longer than this is detached and retried (90 s)
 * @param defaultCallTimeout the deadline of an operation whose gRPC call carries none
 */
public record EbsControllerOptions(
    String region,
    Map<String, String> extraTags,
    String k8sTagClusterId,
    boolean warnOnInvalidTag,
    Duration modifyVolumeRequestHandlerTimeout,
    DescribeBatching batching,
    AwsRateLimits rateLimits,
    AwsRetryPolicy retryPolicy,
    Duration stuckAttachingTimeout,
    Duration defaultCallTimeout) {

  private static final Logger LOG = LogManager.getLogger(EbsControllerOptions.class);

  public EbsControllerOptions {
    extraTags = Map.copyOf(extraTags);
    k8sTagClusterId = k8sTagClusterId == null ? "" : k8sTagClusterId;
    // Checked at start, as upstream does, so that a bad flag stops the controller instead of failing every create.
    if (extraTags.size() > TagLimits.MAX_TAGS) {
      throw new IllegalArgumentException("--extra-tags: a volume can have at most " + TagLimits.MAX_TAGS
          + " tags; the flag alone names " + extraTags.size());
    }
    Map<String, String> valid = new LinkedHashMap<>();
    for (Map.Entry<String, String> tag : extraTags.entrySet()) {
      String reason = ResourceTags.reservedReason(tag.getKey());
      if (reason == null) {
        reason = TagLimits.valueProblem(tag.getKey(), tag.getValue()).orElse(null);
      }
      if (reason == null) {
        valid.put(tag.getKey(), tag.getValue());
      } else if (warnOnInvalidTag) {
        // As upstream under --warn-on-invalid-tag: the tag is dropped, the controller starts.
        LOG.warn("Ignoring invalid tag {} of --extra-tags: {}", tag.getKey(), reason);
      } else {
        throw new IllegalArgumentException("--extra-tags: " + reason + " (--warn-on-invalid-tag drops it instead)");
      }
    }
    extraTags = Collections.unmodifiableMap(valid);
    if (modifyVolumeRequestHandlerTimeout.isNegative() || stuckAttachingTimeout.isNegative()
        || defaultCallTimeout.isNegative() || defaultCallTimeout.isZero()) {
      throw new IllegalArgumentException("EBS controller timeouts must not be negative");
    }
  }

  /** Upstream's defaults for {@code region}. */
  public static EbsControllerOptions defaults(String region) {
    return new EbsControllerOptions(region, Map.of(), "", false, Duration.ofSeconds(2), DescribeBatching.DEFAULT,
        AwsRateLimits.DEFAULT, AwsRetryPolicy.EC2_DEFAULT, Duration.ofSeconds(90), Duration.ofMinutes(2));
  }

  public EbsControllerOptions withExtraTags(Map<String, String> tags) {
    return new EbsControllerOptions(region, tags, k8sTagClusterId, warnOnInvalidTag,
        modifyVolumeRequestHandlerTimeout, batching, rateLimits, retryPolicy, stuckAttachingTimeout,
        defaultCallTimeout);
  }

  public EbsControllerOptions withK8sTagClusterId(String clusterId) {
    return new EbsControllerOptions(region, extraTags, clusterId, warnOnInvalidTag,
        modifyVolumeRequestHandlerTimeout, batching, rateLimits, retryPolicy, stuckAttachingTimeout,
        defaultCallTimeout);
  }

  public EbsControllerOptions withModifyVolumeRequestHandlerTimeout(Duration timeout) {
    return new EbsControllerOptions(region, extraTags, k8sTagClusterId, warnOnInvalidTag, timeout, batching,
        rateLimits, retryPolicy, stuckAttachingTimeout, defaultCallTimeout);
  }

  public EbsControllerOptions withBatching(DescribeBatching value) {
    return new EbsControllerOptions(region, extraTags, k8sTagClusterId, warnOnInvalidTag,
        modifyVolumeRequestHandlerTimeout, value, rateLimits, retryPolicy, stuckAttachingTimeout, defaultCallTimeout);
  }

  public EbsControllerOptions withRateLimits(AwsRateLimits value) {
    return new EbsControllerOptions(region, extraTags, k8sTagClusterId, warnOnInvalidTag,
        modifyVolumeRequestHandlerTimeout, batching, value, retryPolicy, stuckAttachingTimeout, defaultCallTimeout);
  }

  public EbsControllerOptions withStuckAttachingTimeout(Duration value) {
    return new EbsControllerOptions(region, extraTags, k8sTagClusterId, warnOnInvalidTag,
        modifyVolumeRequestHandlerTimeout, batching, rateLimits, retryPolicy, value, defaultCallTimeout);
  }

  public EbsControllerOptions withDefaultCallTimeout(Duration value) {
    return new EbsControllerOptions(region, extraTags, k8sTagClusterId, warnOnInvalidTag,
        modifyVolumeRequestHandlerTimeout, batching, rateLimits, retryPolicy, stuckAttachingTimeout, value);
  }

  /**
   * {@code --warn-on-invalid-tag}. Set it before {@link #withExtraTags}: the extra tags are checked when they are
   * set.
   */
  public EbsControllerOptions withWarnOnInvalidTag(boolean value) {
    return new EbsControllerOptions(region, extraTags, k8sTagClusterId, value, modifyVolumeRequestHandlerTimeout,
        batching, rateLimits, retryPolicy, stuckAttachingTimeout, defaultCallTimeout);
  }
}
