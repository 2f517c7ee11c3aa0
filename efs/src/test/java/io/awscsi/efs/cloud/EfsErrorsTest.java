package io.awscsi.efs.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.aws.call.AwsAction;
import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.AwsCallRunner;
import io.awscsi.aws.call.AwsRetryPolicy;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.metrics.MetricsRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.efs.model.AccessPointAlreadyExistsException;
import software.amazon.awssdk.services.efs.model.AccessPointLimitExceededException;
import software.amazon.awssdk.services.efs.model.AccessPointNotFoundException;
import software.amazon.awssdk.services.efs.model.BadRequestException;
import software.amazon.awssdk.services.efs.model.FileSystemNotFoundException;
import software.amazon.awssdk.services.efs.model.ThrottlingException;

/**
 * EFS's side of the shared call runner: its error classification, its metric names and what is retried. The runner's
 * own rules (backoff, deadline, token wait) are tested in aws-common's AwsCallRunnerTest.
 */
class EfsErrorsTest {

  private final MetricsRegistry metrics = new MetricsRegistry();
  private final AwsCallRunner runner = SdkEfsCloud.callRunner(metrics,
      new AwsRetryPolicy(Duration.ofMillis(1), Duration.ofMillis(5), 4));

  /** As SdkEfsCloud calls: the action by name, within the current call's deadline. */
  private <T> T call(String request, String resourceId, Supplier<T> call) {
    return runner.run(AwsAction.named(request), resourceId, CallDeadline.after(Duration.ofSeconds(10)),
        override -> call.get());
  }

  private static AwsServiceException service(String code, int status) {
    return AwsServiceException.builder().statusCode(status)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(code + " happened").build()).build();
  }

  static Stream<Arguments> classifications() {
    return Stream.of(
        Arguments.of(AccessPointNotFoundException.builder().message("gone").build(), AwsCallError.NotFound.class),
        Arguments.of(FileSystemNotFoundException.builder().message("gone").build(), AwsCallError.NotFound.class),
        Arguments.of(AccessPointAlreadyExistsException.builder().accessPointId("fsap-1").message("x").build(),
            AwsCallError.AccessPointAlreadyExists.class),
        Arguments.of(AccessPointLimitExceededException.builder().message("quota").statusCode(403).build(),
            AwsCallError.AccessPointLimitExceeded.class),
        Arguments.of(service("AccessPointLimitExceeded", 403), AwsCallError.AccessPointLimitExceeded.class),
        Arguments.of(ThrottlingException.builder().message("slow down").statusCode(429).build(),
            AwsCallError.Throttled.class),
        Arguments.of(service("ThrottlingException", 400), AwsCallError.Throttled.class),
        Arguments.of(service("AccessDeniedException", 403), AwsCallError.AccessDenied.class),
        Arguments.of(service("SomethingForbidden", 403), AwsCallError.AccessDenied.class),
        Arguments.of(BadRequestException.builder().message("bad").statusCode(400).build(),
            AwsCallError.InvalidRequest.class),
        Arguments.of(service("InternalServerError", 500), AwsCallError.Unavailable.class),
        Arguments.of(SdkClientException.create("connection refused"), AwsCallError.Unavailable.class),
        Arguments.of(service("Weird", 409), AwsCallError.Unexpected.class));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("classifications")
  void classifiesAwsErrors(SdkException failure, Class<? extends AwsCallError> expected) {
    assertThat(EfsErrors.errorOf("fs-0123abcd", failure)).isInstanceOf(expected);
  }

  @Test
  void alreadyExistsCarriesTheAccessPointId() {
    AwsCallError error = EfsErrors.errorOf("fs-0123abcd",
        AccessPointAlreadyExistsException.builder().accessPointId("fsap-0123abcd").message("x").build());

    assertThat(error).isEqualTo(new AwsCallError.AccessPointAlreadyExists("fsap-0123abcd", "x"));
  }

  @Test
  void retriesThrottledCallsAndCountsThrottles() {
    AtomicInteger attempts = new AtomicInteger();
    String result = call("DescribeAccessPoints", "fs-0123abcd", () -> {
      if (attempts.incrementAndGet() < 3) {
        throw ThrottlingException.builder().message("Rate exceeded").statusCode(429).build();
      }
      return "ok";
    });

    assertThat(result).isEqualTo("ok");
    assertThat(attempts).hasValue(3);
    assertThat(metrics.counter("aws_efs_csi_api_request_throttles_total", "", "request").value("DescribeAccessPoints"))
        .isEqualTo(2);
    assertThat(metrics.histogram("aws_efs_csi_api_request_duration_seconds", "", new double[0], "request")
        .count("DescribeAccessPoints")).isEqualTo(3);
  }

  @Test
  void givesUpAfterTheLastAttemptWithTheClassifiedError() {
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(() -> call("CreateAccessPoint", "fs-0123abcd", () -> {
      attempts.incrementAndGet();
      throw service("InternalServerError", 503);
    })).isInstanceOfSatisfying(AwsCallException.class, e -> {
      assertThat(e.error()).isInstanceOf(AwsCallError.Unavailable.class);
      assertThat(e.operation()).isEqualTo("CreateAccessPoint");
    });
    assertThat(attempts).hasValue(4);
    assertThat(metrics.counter("aws_efs_csi_api_request_errors_total", "", "request", "error")
        .value("CreateAccessPoint", "InternalServerError")).isEqualTo(4);
  }

  @Test
  void doesNotRetryErrorsThatWillNotPass() {
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(() -> call("CreateAccessPoint", "fs-0123abcd", () -> {
      attempts.incrementAndGet();
      throw AccessPointLimitExceededException.builder().message("quota").statusCode(403).build();
    })).isInstanceOfSatisfying(AwsCallException.class,
        e -> assertThat(e.error()).isInstanceOf(AwsCallError.AccessPointLimitExceeded.class));
    assertThat(attempts).hasValue(1);
  }
}
