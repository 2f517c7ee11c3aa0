package io.awscsi.efs.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.metrics.MetricsRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
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

class EfsApiCallsTest {

  private final MetricsRegistry metrics = new MetricsRegistry();
  private final EfsApiCalls calls = new EfsApiCalls(metrics,
      new EfsApiCalls.RetrySettings(4, Duration.ofMillis(1), Duration.ofMillis(5)));

  private static AwsServiceException service(String code, int status) {
    return AwsServiceException.builder().statusCode(status)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(code + " happened").build()).build();
  }

  static Stream<Arguments> classifications() {
    return Stream.of(
        Arguments.of(AccessPointNotFoundException.builder().message("gone").build(), CloudError.NotFound.class),
        Arguments.of(FileSystemNotFoundException.builder().message("gone").build(), CloudError.NotFound.class),
        Arguments.of(AccessPointAlreadyExistsException.builder().accessPointId("fsap-1").message("x").build(),
            CloudError.AccessPointAlreadyExists.class),
        Arguments.of(AccessPointLimitExceededException.builder().message("quota").statusCode(403).build(),
            CloudError.AccessPointLimitExceeded.class),
        Arguments.of(service("AccessPointLimitExceeded", 403), CloudError.AccessPointLimitExceeded.class),
        Arguments.of(ThrottlingException.builder().message("slow down").statusCode(429).build(),
            CloudError.Throttled.class),
        Arguments.of(service("ThrottlingException", 400), CloudError.Throttled.class),
        Arguments.of(service("AccessDeniedException", 403), CloudError.AccessDenied.class),
        Arguments.of(service("SomethingForbidden", 403), CloudError.AccessDenied.class),
        Arguments.of(BadRequestException.builder().message("bad").statusCode(400).build(),
            CloudError.InvalidRequest.class),
        Arguments.of(service("InternalServerError", 500), CloudError.Unavailable.class),
        Arguments.of(SdkClientException.create("connection refused"), CloudError.Unavailable.class),
        Arguments.of(service("Weird", 409), CloudError.Unexpected.class));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("classifications")
  void classifiesAwsErrors(SdkException failure, Class<? extends CloudError> expected) {
    assertThat(EfsErrors.errorOf("fs-0123abcd", failure)).isInstanceOf(expected);
  }

  @Test
  void alreadyExistsCarriesTheAccessPointId() {
    CloudError error = EfsErrors.errorOf("fs-0123abcd",
        AccessPointAlreadyExistsException.builder().accessPointId("fsap-0123abcd").message("x").build());

    assertThat(error).isEqualTo(new CloudError.AccessPointAlreadyExists("fsap-0123abcd", "x"));
  }

  @Test
  void retriesThrottledCallsAndCountsThrottles() {
    AtomicInteger attempts = new AtomicInteger();
    String result = calls.call("DescribeAccessPoints", "fs-0123abcd", () -> {
      if (attempts.incrementAndGet() < 3) {
        throw ThrottlingException.builder().message("Rate exceeded").statusCode(429).build();
      }
      return "ok";
    });

    assertThat(result).isEqualTo("ok");
    assertThat(attempts).hasValue(3);
    assertThat(metrics.counter(EfsApiCalls.THROTTLES_METRIC, "", "request").value("DescribeAccessPoints"))
        .isEqualTo(2);
    assertThat(metrics.histogram(EfsApiCalls.DURATION_METRIC, "", new double[0], "request")
        .count("DescribeAccessPoints")).isEqualTo(3);
  }

  @Test
  void givesUpAfterTheLastAttemptWithTheClassifiedError() {
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(() -> calls.call("CreateAccessPoint", "fs-0123abcd", () -> {
      attempts.incrementAndGet();
      throw service("InternalServerError", 503);
    })).isInstanceOfSatisfying(EfsCloudException.class, e -> {
      assertThat(e.error()).isInstanceOf(CloudError.Unavailable.class);
      assertThat(e.operation()).isEqualTo("CreateAccessPoint");
    });
    assertThat(attempts).hasValue(4);
    assertThat(metrics.counter(EfsApiCalls.ERRORS_METRIC, "", "request", "error")
        .value("CreateAccessPoint", "InternalServerError")).isEqualTo(4);
  }

  @Test
  void doesNotRetryErrorsThatWillNotPass() {
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(() -> calls.call("CreateAccessPoint", "fs-0123abcd", () -> {
      attempts.incrementAndGet();
      throw AccessPointLimitExceededException.builder().message("quota").statusCode(403).build();
    })).isInstanceOfSatisfying(EfsCloudException.class,
        e -> assertThat(e.error()).isInstanceOf(CloudError.AccessPointLimitExceeded.class));
    assertThat(attempts).hasValue(1);
  }
}
