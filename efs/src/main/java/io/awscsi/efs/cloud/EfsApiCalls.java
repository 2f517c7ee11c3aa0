package io.awscsi.efs.cloud;

import io.awscsi.core.metrics.MetricsRegistry;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Runs every EFS API call: classifies failures, retries throttled and unavailable calls with exponential backoff and
 * jitter, and records the upstream driver's metrics. Each API action has its own {@link Retry} and there is no retry
 * quota shared between calls, so a storm of throttled DescribeAccessPoints cannot use up the retries of
 * CreateAccessPoint (upstream's "retry quota exceeded", #1504). SDK clients handed to this driver should have the
 * SDK's own retries turned off so the two do not multiply.
 */
public final class EfsApiCalls {

  private static final Logger LOG = LogManager.getLogger(EfsApiCalls.class);

  static final String DURATION_METRIC = "aws_efs_csi_api_request_duration_seconds";
  static final String ERRORS_METRIC = "aws_efs_csi_api_request_errors_total";
  static final String THROTTLES_METRIC = "aws_efs_csi_api_request_throttles_total";

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
  }

  private final RetrySettings settings;
  private final Map<String, Retry> retries = new ConcurrentHashMap<>();
  private final MetricsRegistry.Histogram duration;
  private final MetricsRegistry.Counter errors;
  private final MetricsRegistry.Counter throttles;

  public EfsApiCalls(MetricsRegistry metrics, RetrySettings settings) {
    this.settings = settings;
    this.duration = metrics.histogram(DURATION_METRIC, "Latency of EFS API calls in seconds",
        MetricsRegistry.LATENCY_BUCKETS, "request");
    this.errors = metrics.counter(ERRORS_METRIC, "EFS API calls that failed, by error code", "request", "error");
    this.throttles = metrics.counter(THROTTLES_METRIC, "EFS API calls that were throttled", "request");
  }

  /**
   * Runs one API action.
   *
   * @param request the API action name (CreateAccessPoint), used as the metric label and retry budget
   * @param resourceId the file system or access point the call is about, for error messages
   * @throws EfsCloudException when the call fails for good
   */
  public <T> T call(String request, String resourceId, Supplier<T> call) {
    Retry retry = retries.computeIfAbsent(request, this::newRetry);
    return retry.executeSupplier(() -> attempt(request, resourceId, call));
  }

  private <T> T attempt(String request, String resourceId, Supplier<T> call) {
    long start = System.nanoTime();
    try {
      return call.get();
    } catch (SdkException e) {
      EfsCloudException classified = EfsErrors.classify(request, resourceId, e);
      if (classified.error() instanceof CloudError.Throttled) {
        throttles.inc(request);
      } else {
        errors.inc(request, errorCode(e));
      }
      throw classified;
    } finally {
      duration.observe((System.nanoTime() - start) / 1e9, request);
    }
  }

  private Retry newRetry(String request) {
    RetryConfig config = RetryConfig.custom()
        .maxAttempts(settings.maxAttempts())
        .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(settings.initialBackoff(), 2.0, 0.5,
            settings.maxBackoff()))
        .retryOnException(EfsApiCalls::retryable)
        .build();
    Retry retry = Retry.of(request, config);
    retry.getEventPublisher().onRetry(event -> LOG.info("EFS {} retry {} in {} ms: {}", request,
        event.getNumberOfRetryAttempts(), event.getWaitInterval().toMillis(),
        event.getLastThrowable() == null ? "" : event.getLastThrowable().getMessage()));
    return retry;
  }

  private static boolean retryable(Throwable failure) {
    return failure instanceof EfsCloudException e
        && (e.error() instanceof CloudError.Throttled || e.error() instanceof CloudError.Unavailable);
  }

  private static String errorCode(SdkException e) {
    if (e instanceof AwsServiceException s && s.awsErrorDetails() != null && s.awsErrorDetails().errorCode() != null) {
      return s.awsErrorDetails().errorCode();
    }
    return e.getClass().getSimpleName();
  }
}
