package io.awscsi.efs.cloud;

import io.awscsi.core.concurrent.TokenBucket;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.CallBudget;
import io.awscsi.core.provider.Reachability;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Runs every EFS API call: bounds it by the CSI call's deadline ({@link CallBudget}: each attempt's HTTP timeout is
 * the time left, and no retry starts that could not end in time), classifies failures, retries throttled and
 * unavailable calls with exponential backoff and jitter, records the upstream driver's metrics and tells
 * {@link Reachability} whether EFS answered. Retries are counted per call, with no retry quota shared between calls,
 * so a storm of throttled DescribeAccessPoints cannot use up the retries of CreateAccessPoint (upstream's "retry
 * quota exceeded", #1504). Each attempt first takes a token of its action's client-side bucket ({@link RateLimits}),
 * so that many concurrent CreateVolume calls wait here in order instead of being throttled by EFS. SDK clients handed
 * to this driver should have the SDK's own retries turned off so the two do not multiply.
 */
public final class EfsApiCalls {

  private static final Logger LOG = LogManager.getLogger(EfsApiCalls.class);

  static final String DURATION_METRIC = "aws_efs_csi_api_request_duration_seconds";
  static final String ERRORS_METRIC = "aws_efs_csi_api_request_errors_total";
  static final String THROTTLES_METRIC = "aws_efs_csi_api_request_throttles_total";

  /** The deadline of a call made outside a CSI call (startup, tests). */
  static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(60);
  /** The least time an attempt needs to be worth sending. */
  static final Duration MIN_USEFUL_TIME = Duration.ofMillis(50);

  /**
   * How throttled or unavailable calls are retried.
   *
   * @param maxAttempts attempts in total, the first included
   * @param initialBackoff wait before the second attempt; each later wait doubles, randomized by half either way
   * @param maxBackoff the longest single wait
   */
  public record RetrySettings(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

    /** About six seconds of waiting at most, well inside the provisioner's 15 s default timeout. */
    public static final RetrySettings DEFAULT = new RetrySettings(6, Duration.ofMillis(200), Duration.ofSeconds(5));

    public RetrySettings {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
      }
      if (initialBackoff.isNegative() || initialBackoff.isZero() || maxBackoff.compareTo(initialBackoff) < 0) {
        throw new IllegalArgumentException("backoff must be positive and maxBackoff >= initialBackoff");
      }
    }

    /** The wait after {@code attempt} failed attempts: doubling from the initial one, +-50 %, capped. */
    Duration backoff(int attempt, double random) {
      long base = initialBackoff.toMillis() << Math.min(attempt - 1, 20);
      long capped = Math.min(base, maxBackoff.toMillis());
      return Duration.ofMillis(Math.max(1, (long) (capped * (0.5 + random))));
    }
  }

  /**
   * Client-side token buckets, one per EFS action, shaped like the account's. AWS publishes no EFS API rates, so EC2's
   * per-action defaults stand in (Describe: burst 100, refill 20/s; mutating: burst 50, refill 5/s), refilled at that
   * rate with a 10% smaller burst, as the EBS controller's: if EFS's real buckets are smaller, its throttling answers
   * empty the bucket here and the calls wait for the refill.
   */
  public record RateLimits(double mutatingBurst, double mutatingPerSecond, double describeBurst,
      double describePerSecond) {

    public static final RateLimits DEFAULT = new RateLimits(45, 5, 90, 20);

    TokenBucket bucketFor(String request) {
      boolean describe = request.startsWith("Describe") || request.startsWith("List");
      return describe ? new TokenBucket(describeBurst, describePerSecond)
          : new TokenBucket(mutatingBurst, mutatingPerSecond);
    }
  }

  private final RetrySettings settings;
  private final RateLimits limits;
  private final Map<String, TokenBucket> buckets = new ConcurrentHashMap<>();
  private final Reachability reachability = new Reachability("EFS");
  private final MetricsRegistry.Histogram duration;
  private final MetricsRegistry.Counter errors;
  private final MetricsRegistry.Counter throttles;

  public EfsApiCalls(MetricsRegistry metrics, RetrySettings settings) {
    this(metrics, settings, RateLimits.DEFAULT);
  }

  public EfsApiCalls(MetricsRegistry metrics, RetrySettings settings, RateLimits limits) {
    this.settings = settings;
    this.limits = limits;
    this.duration = metrics.histogram(DURATION_METRIC, "Latency of EFS API calls in seconds",
        MetricsRegistry.LATENCY_BUCKETS, "request");
    this.errors = metrics.counter(ERRORS_METRIC, "EFS API calls that failed, by error code", "request", "error");
    this.throttles = metrics.counter(THROTTLES_METRIC, "EFS API calls that were throttled", "request");
  }

  /** Whether EFS answered the driver's latest calls (readiness, without calls of its own). */
  public Reachability reachability() {
    return reachability;
  }

  /** As {@link #call(String, String, Function)} for a request that takes no per-request override. */
  public <T> T call(String request, String resourceId, Supplier<T> call) {
    return call(request, resourceId, override -> call.get());
  }

  /**
   * Runs one API action within the current CSI call's deadline.
   *
   * @param request the API action name (CreateAccessPoint), used as the metric label and in messages
   * @param resourceId the file system or access point the call is about, for error messages
   * @param call sends the request with the given override (which carries the attempt's timeout)
   * @throws EfsCloudException when the call fails for good; {@link CloudError.NoAnswer} when EFS did not answer in time
   */
  public <T> T call(String request, String resourceId, Function<AwsRequestOverrideConfiguration, T> call) {
    Instant deadline = CallBudget.deadline(DEFAULT_CALL_TIMEOUT);
    TokenBucket bucket = buckets.computeIfAbsent(request, limits::bucketFor);
    for (int attempt = 1; ; attempt++) {
      awaitToken(bucket, request, resourceId, deadline);
      Duration left = Duration.between(Instant.now(), deadline);
      if (left.compareTo(MIN_USEFUL_TIME) < 0) {
        throw noAnswer(request, "EFS " + request + " of " + resourceId + ": the call's deadline passed before "
            + (attempt == 1 ? "the request could be sent" : "attempt " + attempt), null);
      }
      AwsRequestOverrideConfiguration override = AwsRequestOverrideConfiguration.builder().apiCallTimeout(left)
          .build();
      try {
        return attempt(request, resourceId, left, () -> call.apply(override));
      } catch (EfsCloudException e) {
        if (e.error() instanceof CloudError.Throttled) {
          // Another client shares the account's bucket: wait for the refill instead of spending tokens EFS lacks.
          bucket.drain();
        }
        if (!retryable(e) || attempt >= settings.maxAttempts()) {
          throw e;
        }
        Duration pause = settings.backoff(attempt, ThreadLocalRandom.current().nextDouble());
        if (pause.plus(MIN_USEFUL_TIME).compareTo(Duration.between(Instant.now(), deadline)) >= 0) {
          throw e;
        }
        LOG.info("EFS {} retry {} in {} ms: {}", request, attempt, pause.toMillis(), e.getMessage());
        try {
          Thread.sleep(pause);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw noAnswer(request, "EFS " + request + " of " + resourceId + ": interrupted (the driver is stopping)",
              interrupted);
        }
      }
    }
  }

  /** Waits for the action's token; fails at once when the wait would not leave time for the request. */
  private static void awaitToken(TokenBucket bucket, String request, String resourceId, Instant deadline) {
    Duration wait = bucket.reserve();
    if (wait.isZero()) {
      return;
    }
    if (wait.plus(MIN_USEFUL_TIME).compareTo(Duration.between(Instant.now(), deadline)) >= 0) {
      bucket.cancel();
      throw noAnswer(request, "EFS " + request + " of " + resourceId + ": the call's deadline would pass while "
          + "waiting " + wait.toMillis() + " ms for the client-side rate limit", null);
    }
    try {
      Thread.sleep(wait);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw noAnswer(request, "EFS " + request + " of " + resourceId + ": interrupted (the driver is stopping)",
          interrupted);
    }
  }

  private <T> T attempt(String request, String resourceId, Duration allowed, Supplier<T> call) {
    long start = System.nanoTime();
    try {
      T result = call.get();
      reachability.answered(request);
      return result;
    } catch (SdkException e) {
      EfsCloudException classified = EfsErrors.classify(request, resourceId, e);
      if (classified.error() instanceof CloudError.NoAnswer) {
        classified = noAnswer(request, "EFS " + request + " of " + resourceId + " did not answer within "
            + allowed.toMillis() + " ms, the time left before the call's deadline", e);
      }
      if (classified.error() instanceof CloudError.Throttled) {
        throttles.inc(request);
      } else {
        errors.inc(request, errorCode(e));
      }
      if (unanswered(classified.error())) {
        reachability.unanswered(request, classified.error().message());
      } else {
        reachability.answered(request);
      }
      throw classified;
    } finally {
      duration.observe((System.nanoTime() - start) / 1e9, request);
    }
  }

  private static EfsCloudException noAnswer(String request, String message, Throwable cause) {
    return new EfsCloudException(request, new CloudError.NoAnswer(message), cause);
  }

  /** Failures without an EFS answer, or with refused credentials: what readiness reports. */
  static boolean unanswered(CloudError error) {
    return error instanceof CloudError.Unavailable || error instanceof CloudError.NoAnswer
        || error instanceof CloudError.AccessDenied;
  }

  private static boolean retryable(EfsCloudException e) {
    return e.error() instanceof CloudError.Throttled || e.error() instanceof CloudError.Unavailable;
  }

  private static String errorCode(SdkException e) {
    if (e instanceof AwsServiceException s && s.awsErrorDetails() != null && s.awsErrorDetails().errorCode() != null) {
      return s.awsErrorDetails().errorCode();
    }
    return e.getClass().getSimpleName();
  }
}
