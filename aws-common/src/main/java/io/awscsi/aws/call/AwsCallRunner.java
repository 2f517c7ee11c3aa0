package io.awscsi.aws.call;

import io.awscsi.core.concurrent.TokenBucket;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.Reachability;
import io.awscsi.core.provider.WorkProgress;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;

/**
 * Runs every AWS request of one service (EC2 or EFS): waits for the action's client-side token bucket, sends the
 * request with an HTTP timeout no later than the caller's deadline, classifies a failure with the service's
 * {@link AwsErrorMapping}, records the service's metrics, tells {@link Reachability} whether the service answered, and
 * retries throttling and server faults with the action's own resilience4j {@link Retry} (one per action, so one
 * throttled API never slows the others, and no retry quota is shared between calls: upstream EFS's "retry quota
 * exceeded", #1504).
 *
 * <p>The SDK clients given to the driver must not retry on their own (build them with
 * {@code AwsRetryStrategy.doNotRetry()}): retries here are bounded by the deadline and counted.
 */
public final class AwsCallRunner {

  private static final Logger LOG = LogManager.getLogger(AwsCallRunner.class);

  private final String service;
  private final AwsErrorMapping mapping;
  private final AwsRateLimits limits;
  private final RetryConfig retryConfig;
  private final Reachability reachability;
  private final AwsCallMetrics names;
  private final Map<String, TokenBucket> buckets = new ConcurrentHashMap<>();
  private final Map<String, Retry> retries = new ConcurrentHashMap<>();
  private final MetricsRegistry.Histogram duration;
  private final MetricsRegistry.Counter errors;
  private final MetricsRegistry.Counter throttles;

  /**
   * @param service names the service in messages and readiness, e.g. "EC2"
   * @param reachability told of every answer and every failure without one
   */
  public AwsCallRunner(String service, AwsErrorMapping mapping, AwsRateLimits limits, AwsRetryPolicy policy,
      AwsCallMetrics names, MetricsRegistry metrics, Reachability reachability) {
    this.service = service;
    this.mapping = mapping;
    this.limits = limits;
    this.retryConfig = retryConfig(policy);
    this.reachability = reachability;
    this.names = names;
    duration = metrics.histogram(names.durationName(), names.durationHelp(), MetricsRegistry.LATENCY_BUCKETS,
        "request");
    errors = metrics.counter(names.errorsName(), names.errorsHelp(), "request", names.errorCodeLabel());
    throttles = metrics.counter(names.throttlesName(), names.throttlesHelp(), names.throttleLabel());
  }

  /** Whether the service answered the driver's latest calls (readiness, without calls of its own). */
  public Reachability reachability() {
    return reachability;
  }

  private static RetryConfig retryConfig(AwsRetryPolicy policy) {
    IntervalBiFunction<Object> interval = (attempt, outcome) -> {
      Duration remaining = outcome.isLeft() && outcome.getLeft() instanceof AwsCallException e && e.deadline() != null
          ? e.deadline().remaining() : policy.maxDelay();
      return policy.backoff(attempt, ThreadLocalRandom.current().nextDouble(), remaining).toMillis();
    };
    return RetryConfig.custom()
        .maxAttempts(policy.maxAttempts())
        .retryOnException(t -> t instanceof AwsCallException e && e.deadline() != null
            && policy.shouldRetry(e.error(), e.deadline().remaining()))
        .intervalBiFunction(interval)
        .failAfterMaxAttempts(false)
        .build();
  }

  /** As {@link #run(AwsAction, String, CallDeadline, Function)} for a request that names no single resource. */
  public <T> T run(AwsAction action, CallDeadline deadline, Function<AwsRequestOverrideConfiguration, T> request) {
    return run(action, null, deadline, request);
  }

  /**
   * Runs {@code request} for {@code action} within {@code deadline}; the function receives the per-request override
   * that carries the attempt's HTTP timeout.
   *
   * @param resourceId the file system, volume or access point the call is about, for messages; null when none
   * @throws AwsCallException with the classified error once retries are spent
   */
  public <T> T run(AwsAction action, String resourceId, CallDeadline deadline,
      Function<AwsRequestOverrideConfiguration, T> request) {
    Retry retry = retries.computeIfAbsent(action.apiName(), api -> Retry.of(service + " " + api, retryConfig));
    TokenBucket bucket = buckets.computeIfAbsent(action.apiName(), api -> limits.bucketFor(action));
    return retry.executeSupplier(() -> attempt(action.apiName(), subject(action.apiName(), resourceId), bucket,
        deadline, resourceId, request));
  }

  /** How messages name the call: "EFS CreateAccessPoint of fs-1234", "EC2 AttachVolume". */
  private String subject(String api, String resourceId) {
    return service + " " + api + (resourceId == null ? "" : " of " + resourceId);
  }

  /**
   * Waits for the action's client-side token (the bucket is shaped like the service's own, a little smaller, so the
   * driver waits here instead of being throttled), or fails at once when the wait would not leave the request time.
   * Tokens go in arrival order ({@link TokenBucket#reserve}). For a controller operation the deadline is the
   * operation's own budget, not its caller's gRPC deadline (the work outlives a caller that gives up, and the retry
   * joins it: {@code InFlightOperations}), so a burst larger than the rate limit waits its turn instead of being
   * refused and queueing again at the back with each retry.
   */
  static void waitForToken(TokenBucket bucket, CallDeadline deadline, String api, String subject) {
    Duration wait = bucket.reserve();
    if (wait.isZero()) {
      return;
    }
    if (wait.plus(AwsRetryPolicy.MIN_USEFUL_TIME).compareTo(deadline.remaining()) >= 0) {
      bucket.cancel();
      throw new AwsCallException(api, new AwsCallError.DeadlinePassed(subject + ": the call's deadline would pass "
          + "while waiting " + wait.toMillis() + " ms for the client-side rate limit"), null);
    }
    try (var waiting = WorkProgress.waitingOn(subject + ": the client-side rate limit (" + wait.toMillis()
        + " ms to wait)")) {
      deadline.sleep(wait, subject + ": waiting for the client-side rate limit");
    } catch (AwsCallException e) {
      throw new AwsCallException(api, e.error(), null);
    }
  }

  private <T> T attempt(String api, String subject, TokenBucket bucket, CallDeadline deadline, String resourceId,
      Function<AwsRequestOverrideConfiguration, T> request) {
    waitForToken(bucket, deadline, api, subject);
    // Within an operation's work (which outlives its callers) an attempt still ends by the waiting caller's deadline,
    // so that an API that does not answer is found out (readiness, the caller's answer) when it was on the caller's
    // thread; the work then retries within its own budget.
    Instant cutoff = WorkProgress.attemptDeadline(deadline.at());
    Duration left = Duration.between(Instant.now(), cutoff);
    if (left.compareTo(AwsRetryPolicy.MIN_USEFUL_TIME) < 0) {
      throw new AwsCallException(api, new AwsCallError.DeadlinePassed(subject
          + ": the call's deadline passed before the request could be sent"), null);
    }
    boolean cutShort = Duration.between(cutoff, deadline.at()).compareTo(AwsRetryPolicy.MIN_USEFUL_TIME) > 0;
    AwsRequestOverrideConfiguration override = AwsRequestOverrideConfiguration.builder().apiCallTimeout(left).build();
    long start = System.nanoTime();
    try (var waiting = WorkProgress.waitingOn(subject + " (sent, no answer yet)")) {
      T result = request.apply(override);
      duration.observe((System.nanoTime() - start) / 1e9, api);
      reachability.answered(api);
      return result;
    } catch (RuntimeException failure) {
      if (names.timesFailedAttempts()) {
        duration.observe((System.nanoTime() - start) / 1e9, api);
      }
      AwsCallError error = classify(api, subject, resourceId, left, failure);
      if (cutShort && error instanceof AwsCallError.DeadlinePassed && !(failure instanceof AwsCallException)) {
        // The attempt's own end, not the operation's: no answer, retried while the operation's budget lasts.
        error = new AwsCallError.Unavailable("NoAnswer", subject + " did not answer within " + left.toMillis()
            + " ms (an attempt ends by the waiting caller's deadline; retried within the operation's budget)");
      }
      WorkProgress.failed(error.message());
      boolean throttled = error instanceof AwsCallError.Throttled;
      if (!throttled || names.countsThrottlesAsErrors()) {
        errors.inc(api, mapping.metricCode(error, failure));
      }
      if (error.unanswered()) {
        reachability.unanswered(api, error.message());
      } else {
        reachability.answered(api);
      }
      if (throttled) {
        throttles.inc(api);
        // Another client shares the account's bucket: wait for the refill instead of spending tokens AWS lacks.
        bucket.drain();
        LOG.debug("{} throttled: {}", subject, error.message());
      } else if (error.retryable()) {
        LOG.info("{} failed, retrying if time allows: {}", subject, error.message());
      }
      throw new AwsCallException(api, error, deadline, failure);
    }
  }

  /** The service's classification; a timeout at the deadline is told in words that name the call and its time. */
  private AwsCallError classify(String api, String subject, String resourceId, Duration allowed,
      RuntimeException failure) {
    AwsCallError error = failure instanceof AwsCallException e ? e.error()
        : mapping.classify(api, resourceId, failure);
    return error instanceof AwsCallError.DeadlinePassed && !(failure instanceof AwsCallException)
        ? new AwsCallError.DeadlinePassed(subject + " did not answer within " + allowed.toMillis()
            + " ms, the time left before the call's deadline")
        : error;
  }
}
