package io.awscsi.ebs.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.concurrent.TokenBucket;
import io.awscsi.core.metrics.MetricsRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RetryAndRateLimitTest {

  private final Ec2RetryPolicy policy = new Ec2RetryPolicy(Duration.ofMillis(100), Duration.ofSeconds(5), 50);

  @ParameterizedTest(name = "attempt {0}, random {1}, {2} ms left -> {3} ms")
  @CsvSource({
      "1, 0.0, 10000, 50",
      "1, 0.999, 10000, 99",
      "2, 0.0, 10000, 100",
      "4, 0.5, 10000, 600",
      "10, 0.0, 10000, 2500",
      "10, 0.999, 10000, 4997",
      "10, 0.999, 1000, 950",
      "3, 0.5, 40, 0"})
  void backoffIsExponentialWithJitterCappedByMaxAndDeadline(int attempt, double random, long leftMillis,
      long expectedMillis) {
    assertThat(policy.backoff(attempt, random, Duration.ofMillis(leftMillis)).toMillis()).isEqualTo(expectedMillis);
  }

  @Test
  void onlyThrottlingAndServerFaultsAreRetriedAndOnlyWithTimeLeft() {
    Duration plenty = Duration.ofSeconds(10);
    assertThat(policy.shouldRetry(new CloudError.Throttled("RequestLimitExceeded", ""), plenty)).isTrue();
    assertThat(policy.shouldRetry(new CloudError.ServiceUnavailable("InternalError", ""), plenty)).isTrue();
    assertThat(policy.shouldRetry(new CloudError.Throttled("RequestLimitExceeded", ""), Duration.ofMillis(10)))
        .isFalse();
    assertThat(policy.shouldRetry(new CloudError.NotFound("volume", ""), plenty)).isFalse();
    assertThat(policy.shouldRetry(new CloudError.VolumeInUse("VolumeInUse", ""), plenty)).isFalse();
    assertThat(policy.shouldRetry(new CloudError.InvalidParameter("InvalidParameterValue", ""), plenty)).isFalse();
  }

  @Test
  void tokenBucketRefusesAWaitBeyondTheDeadline() {
    AtomicLong now = new AtomicLong();
    TokenBucket bucket = new TokenBucket(1, 0.1, now::get);
    bucket.reserve();
    CallDeadline deadline = CallDeadline.after(Duration.ofMillis(100));
    assertThatThrownBy(() -> Ec2Calls.waitForToken(bucket, deadline, "CreateVolume"))
        .isInstanceOfSatisfying(CloudException.class,
            e -> assertThat(e.error()).isInstanceOf(CloudError.DeadlinePassed.class));
    assertThat(bucket.available()).as("the token it will not use is given back").isZero();
  }

  @Test
  void callsAreRetriedOnThrottlingAndCountedWithUpstreamMetricNames() {
    MetricsRegistry metrics = new MetricsRegistry();
    Ec2Calls calls = new Ec2Calls(Ec2RateLimits.DEFAULT, policy, metrics);
    AtomicInteger attempts = new AtomicInteger();
    String result = calls.run(Ec2Action.ATTACH_VOLUME, CallDeadline.after(Duration.ofSeconds(10)), o -> {
      if (attempts.incrementAndGet() < 3) {
        throw software.amazon.awssdk.awscore.exception.AwsServiceException.builder().statusCode(503)
            .awsErrorDetails(software.amazon.awssdk.awscore.exception.AwsErrorDetails.builder()
                .errorCode("RequestLimitExceeded").errorMessage("Request limit exceeded.").build()).build();
      }
      return "attached";
    });
    assertThat(result).isEqualTo("attached");
    assertThat(attempts).hasValue(3);
    assertThat(metrics.counter(Ec2Calls.THROTTLES, "", "operation_name").value("AttachVolume")).isEqualTo(2);
    assertThat(metrics.counter(Ec2Calls.ERRORS, "", "request", "code").value("AttachVolume", "RequestLimitExceeded"))
        .isEqualTo(2);
    assertThat(metrics.scrape()).contains("aws_ebs_csi_api_request_duration_seconds_count{request=\"AttachVolume\"} 1");
  }

  @Test
  void nonRetryableErrorsFailAtOnce() {
    Ec2Calls calls = new Ec2Calls(Ec2RateLimits.DEFAULT, policy, new MetricsRegistry());
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(() -> calls.run(Ec2Action.DELETE_VOLUME, CallDeadline.after(Duration.ofSeconds(10)), o -> {
      attempts.incrementAndGet();
      throw software.amazon.awssdk.awscore.exception.AwsServiceException.builder().statusCode(400)
          .awsErrorDetails(software.amazon.awssdk.awscore.exception.AwsErrorDetails.builder()
              .errorCode("VolumeInUse").errorMessage("in use").build()).build();
    })).isInstanceOfSatisfying(CloudException.class,
        e -> assertThat(e.error()).isInstanceOf(CloudError.VolumeInUse.class));
    assertThat(attempts).hasValue(1);
  }

  @Test
  void retriesStopAtTheDeadline() {
    Ec2Calls calls = new Ec2Calls(Ec2RateLimits.DEFAULT, policy, new MetricsRegistry());
    long start = System.nanoTime();
    assertThatThrownBy(() -> calls.run(Ec2Action.CREATE_VOLUME, CallDeadline.after(Duration.ofMillis(800)), o -> {
      throw software.amazon.awssdk.awscore.exception.AwsServiceException.builder().statusCode(500)
          .awsErrorDetails(software.amazon.awssdk.awscore.exception.AwsErrorDetails.builder()
              .errorCode("InternalError").errorMessage("boom").build()).build();
    })).isInstanceOf(CloudException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
  }

  @ParameterizedTest(name = "{0} ({1}) -> {2}")
  @CsvSource({
      "RequestLimitExceeded, 503, Throttled",
      "InvalidVolume.NotFound, 400, NotFound",
      "InvalidVolumeID.Malformed, 400, NotFound",
      "InvalidInstanceID.NotFound, 400, NotFound",
      "IdempotentParameterMismatch, 400, IdempotentParameterMismatch",
      "VolumeInUse, 400, VolumeInUse",
      "IncorrectState, 400, VolumeInUse",
      "AttachmentLimitExceeded, 400, AttachmentLimitExceeded",
      "IncorrectModificationState, 400, ModificationInProgress",
      "VolumeModificationRateExceeded, 400, ModificationRateExceeded",
      "VolumeLimitExceeded, 400, LimitExceeded",
      "InvalidParameterValue, 400, InvalidParameter",
      "UnauthorizedOperation, 403, AccessDenied",
      "InternalError, 500, ServiceUnavailable",
      "DryRunOperation, 412, DryRunSucceeded",
      "Weird, 400, Other"})
  void errorCodesMapToTheVocabulary(String code, int status, String expected) {
    assertThat(Ec2ErrorCodes.classify(code, "message", status).getClass().getSimpleName()).isEqualTo(expected);
  }

  @Test
  void aDeviceNameInUseIsItsOwnError() {
    assertThat(Ec2ErrorCodes.classify("InvalidParameterValue", "Invalid value '/dev/xvdaa' for unixDevice. "
        + "Attachment point /dev/xvdaa is already in use", 400)).isInstanceOf(CloudError.DeviceNameInUse.class);
  }
}
