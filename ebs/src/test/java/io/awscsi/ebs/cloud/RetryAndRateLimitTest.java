package io.awscsi.ebs.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.AwsCallMetrics;
import io.awscsi.aws.call.AwsCallRunner;
import io.awscsi.aws.call.AwsRateLimits;
import io.awscsi.aws.call.AwsRetryPolicy;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.Reachability;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * EC2's side of the shared call runner: its error codes, upstream's metric names and what is retried. The runner's
 * own rules (backoff, deadline, token wait) are tested in aws-common's AwsCallRunnerTest.
 */
class RetryAndRateLimitTest {

  private final AwsRetryPolicy policy = new AwsRetryPolicy(Duration.ofMillis(100), Duration.ofSeconds(5), 50);

  /** The runner as {@link SdkEbsCloud} builds it: EC2's mapping and upstream's metric names. */
  private AwsCallRunner runner(MetricsRegistry metrics) {
    return runner(metrics, policy);
  }

  private static AwsCallRunner runner(MetricsRegistry metrics, AwsRetryPolicy retries) {
    return new AwsCallRunner("EC2", Ec2ErrorCodes.MAPPING, AwsRateLimits.DEFAULT, retries, AwsCallMetrics.EC2,
        metrics, new Reachability("EC2"));
  }

  @Test
  void callsAreRetriedOnThrottlingAndCountedWithUpstreamMetricNames() {
    MetricsRegistry metrics = new MetricsRegistry();
    AwsCallRunner calls = runner(metrics);
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
    assertThat(metrics.counter("aws_ebs_csi_api_request_throttles_total", "", "operation_name")
        .value("AttachVolume")).isEqualTo(2);
    assertThat(metrics.counter("aws_ebs_csi_api_request_errors_total", "", "request",
        "code").value("AttachVolume", "RequestLimitExceeded"))
        .isEqualTo(2);
    assertThat(metrics.scrape()).contains("aws_ebs_csi_api_request_duration_seconds_count{request=\"AttachVolume\"} 1");
  }

  @Test
  void nonRetryableErrorsFailAtOnce() {
    AwsCallRunner calls = runner(new MetricsRegistry());
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(() -> calls.run(Ec2Action.DELETE_VOLUME, CallDeadline.after(Duration.ofSeconds(10)), o -> {
      attempts.incrementAndGet();
      throw software.amazon.awssdk.awscore.exception.AwsServiceException.builder().statusCode(400)
          .awsErrorDetails(software.amazon.awssdk.awscore.exception.AwsErrorDetails.builder()
              .errorCode("VolumeInUse").errorMessage("in use").build()).build();
    })).isInstanceOfSatisfying(AwsCallException.class,
        e -> assertThat(e.error()).isInstanceOf(AwsCallError.VolumeInUse.class));
    assertThat(attempts).hasValue(1);
  }

  @Test
  void retriesStopAtTheDeadline() {
    AwsCallRunner calls = runner(new MetricsRegistry());
    long start = System.nanoTime();
    assertThatThrownBy(() -> calls.run(Ec2Action.CREATE_VOLUME, CallDeadline.after(Duration.ofMillis(800)), o -> {
      throw software.amazon.awssdk.awscore.exception.AwsServiceException.builder().statusCode(500)
          .awsErrorDetails(software.amazon.awssdk.awscore.exception.AwsErrorDetails.builder()
              .errorCode("InternalError").errorMessage("boom").build()).build();
    })).isInstanceOf(AwsCallException.class);
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
      "InvalidParameterValue, 400, InvalidRequest",
      "UnauthorizedOperation, 403, AccessDenied",
      "InternalError, 500, Unavailable",
      "DryRunOperation, 412, DryRunSucceeded",
      "Weird, 400, Unexpected"})
  void errorCodesMapToTheVocabulary(String code, int status, String expected) {
    assertThat(Ec2ErrorCodes.classify(code, "message", status).getClass().getSimpleName()).isEqualTo(expected);
  }

  @Test
  void aDeviceNameInUseIsItsOwnError() {
    assertThat(Ec2ErrorCodes.classify("InvalidParameterValue", "Invalid value '/dev/xvdaa' for unixDevice. "
        + "Attachment point /dev/xvdaa is already in use", 400)).isInstanceOf(AwsCallError.DeviceNameInUse.class);
  }

  @Test
  void aCallWithoutAnyConnectionNamesTheApi() {
    // One attempt: with retries the failure would repeat until the deadline and end as DeadlinePassed.
    AwsCallRunner calls = runner(new MetricsRegistry(), new AwsRetryPolicy(Duration.ofMillis(1), Duration.ofMillis(1),
        1));
    assertThatThrownBy(() -> calls.run(Ec2Action.DESCRIBE_VOLUMES, CallDeadline.after(Duration.ofSeconds(5)), o -> {
      throw software.amazon.awssdk.core.exception.SdkClientException.create("Connection refused");
    })).isInstanceOfSatisfying(AwsCallException.class, e -> {
      assertThat(e.error()).isInstanceOf(AwsCallError.Unavailable.class);
      assertThat(e.error().message()).startsWith("EC2 DescribeVolumes got no answer: could not reach EC2");
    });
  }
}
