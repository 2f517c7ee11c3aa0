package io.awscsi.ebs.cloud;

import io.awscsi.core.concurrent.TokenBucket;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.Reachability;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;

/**
 * Runs every EC2 request: waits for the action's client-side token bucket, sends the request with an HTTP timeout no
 * later than the caller's deadline, records upstream's metrics, and retries throttling and server faults with the
 * action's own resilience4j {@link Retry} (one per action, so one throttled API never slows the others).
 *
 * <p>The Ec2Client given to the driver must not retry on its own (build it with {@code AwsRetryStrategy.doNotRetry()}):
 * retries here are bounded by the deadline and counted.
 */
final class Ec2Calls {

  private static final Logger LOG = LogManager.getLogger(Ec2Calls.class);

  static final String DURATION = "aws_ebs_csi_api_request_duration_seconds";
  static final String ERRORS = "aws_ebs_csi_api_request_errors_total";
  static final String THROTTLES = "aws_ebs_csi_api_request_throttles_total";

  private final Map<Ec2Action, TokenBucket> buckets = new EnumMap<>(Ec2Action.class);
  private final Map<Ec2Action, Retry> retries = new EnumMap<>(Ec2Action.class);
  private final MetricsRegistry.Histogram duration;
  private final MetricsRegistry.Counter errors;
  private final MetricsRegistry.Counter throttles;
  private final Reachability reachability;

  Ec2Calls(Ec2RateLimits limits, Ec2RetryPolicy policy, MetricsRegistry metrics) {
    this(limits, policy, metrics, new Reachability("EC2"));
  }

  Ec2Calls(Ec2RateLimits limits, Ec2RetryPolicy policy, MetricsRegistry metrics, Reachability reachability) {
    this.reachability = reachability;
    for (Ec2Action action : Ec2Action.values()) {
      buckets.put(action, limits.bucketFor(action));
      retries.put(action, Retry.of(action.apiName(), retryConfig(policy)));
    }
    duration = metrics.histogram(DURATION, "EBS CSI Driver EC2 API request duration in seconds",
        MetricsRegistry.LATENCY_BUCKETS, "request");
    errors = metrics.counter(ERRORS, "EBS CSI Driver EC2 API request errors", "request", "code");
    throttles = metrics.counter(THROTTLES, "EBS CSI Driver EC2 API requests throttled by EC2", "operation_name");
  }

  private static RetryConfig retryConfig(Ec2RetryPolicy policy) {
    IntervalBiFunction<Object> interval = (attempt, outcome) -> {
      Duration remaining = outcome.isLeft() && outcome.getLeft() instanceof CloudException e && e.deadline() != null
          ? e.deadline().remaining() : policy.maxDelay();
      return policy.backoff(attempt, ThreadLocalRandom.current().nextDouble(), remaining).toMillis();
    };
    return RetryConfig.custom()
        .maxAttempts(policy.maxAttempts())
        .retryOnException(t -> t instanceof CloudException e && e.deadline() != null
            && policy.shouldRetry(e.error(), e.deadline().remaining()))
        .intervalBiFunction(interval)
        .failAfterMaxAttempts(false)
        .build();
  }

  /**
   * Runs {@code request} for {@code action}; the function receives the per-request override that carries the
   * HTTP timeout. Throws {@link CloudException} with the classified error once retries are spent.
   */
  <T> T run(Ec2Action action, CallDeadline deadline, Function<AwsRequestOverrideConfiguration, T> request) {
    return retries.get(action).executeSupplier(() -> attempt(action, deadline, request));
  }

  /**
   * Waits for the action's client-side token (the bucket is shaped like EC2's own, a little smaller, so the driver
   * waits here instead of being answered RequestLimitExceeded), or fails at once when the wait would pass the deadline.
   */
  static void waitForToken(TokenBucket bucket, CallDeadline deadline, String api) {
    Duration wait = bucket.reserve();
    if (wait.isZero()) {
      return;
    }
    if (wait.compareTo(deadline.remaining()) > 0) {
      bucket.cancel();
    }
    deadline.sleep(wait, api + ": waiting for the client-side rate limit");
  }

  private <T> T attempt(Ec2Action action, CallDeadline deadline,
      Function<AwsRequestOverrideConfiguration, T> request) {
    String api = action.apiName();
    waitForToken(buckets.get(action), deadline, api);
    Duration left = deadline.remaining();
    if (left.compareTo(Ec2RetryPolicy.MIN_USEFUL_TIME) < 0) {
      throw new CloudException(new CloudError.DeadlinePassed(api + ": the call's deadline passed before the request"));
    }
    AwsRequestOverrideConfiguration override = AwsRequestOverrideConfiguration.builder().apiCallTimeout(left).build();
    long start = System.nanoTime();
    try {
      T result = request.apply(override);
      duration.observe((System.nanoTime() - start) / 1e9, api);
      reachability.answered(api);
      return result;
    } catch (RuntimeException failure) {
      CloudError error = named(api, left, Ec2ErrorCodes.classify(failure));
      errors.inc(api, errorCode(error));
      if (Ec2ErrorCodes.unanswered(error)) {
        reachability.unanswered(api, error.message());
      } else {
        reachability.answered(api);
      }
      if (error instanceof CloudError.Throttled) {
        throttles.inc(api);
        buckets.get(action).drain();
        LOG.debug("EC2 throttled {}: {}", api, error.message());
      } else if (error.retryable()) {
        LOG.info("EC2 {} failed, retrying if time allows: {}", api, error.message());
      }
      throw new CloudException(error, deadline, failure);
    }
  }

  /** Failures without an EC2 answer, told in words that name the API that did not answer. */
  private static CloudError named(String api, Duration allowed, CloudError error) {
    return switch (error) {
      case CloudError.DeadlinePassed e -> new CloudError.DeadlinePassed("EC2 " + api + " did not answer within "
          + allowed.toMillis() + " ms, the time left before the call's deadline");
      case CloudError.ServiceUnavailable e when e.code().equals("ClientError") -> new CloudError.ServiceUnavailable(
          e.code(), "EC2 " + api + " got no answer: " + e.message());
      default -> error;
    };
  }

  private static String errorCode(CloudError error) {
    return switch (error) {
      case CloudError.NotFound e -> e.message().contains(":") ? e.message().substring(0, e.message().indexOf(':'))
          : "NotFound";
      case CloudError.InvalidParameter e -> e.code();
      case CloudError.VolumeInUse e -> e.code();
      case CloudError.LimitExceeded e -> e.code();
      case CloudError.SnapshotInUse e -> e.code();
      case CloudError.Throttled e -> e.code();
      case CloudError.ServiceUnavailable e -> e.code();
      case CloudError.AccessDenied e -> e.code();
      case CloudError.Other e -> e.code();
      case CloudError.IdempotentParameterMismatch e -> "IdempotentParameterMismatch";
      case CloudError.DeviceNameInUse e -> "InvalidParameterValue";
      case CloudError.AttachmentLimitExceeded e -> "AttachmentLimitExceeded";
      case CloudError.ModificationInProgress e -> "IncorrectModificationState";
      case CloudError.ModificationRateExceeded e -> "VolumeModificationRateExceeded";
      case CloudError.DryRunSucceeded e -> "DryRunOperation";
      case CloudError.DeadlinePassed e -> "DeadlineExceeded";
      case CloudError.Interrupted e -> "Interrupted";
    };
  }
}
