package io.awscsi.core.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GrpcErrorsTest {

  private static final String MSG = "volume vol-1 is attached to i-0abc; detach it first";

  /** Every DriverError variant with the code the CSI spec gives it. */
  static Stream<Arguments> variants() {
    return Stream.of(
        Arguments.of(new DriverError.NotFound(MSG), Status.Code.NOT_FOUND),
        Arguments.of(new DriverError.AlreadyExists(MSG), Status.Code.ALREADY_EXISTS),
        Arguments.of(new DriverError.FailedPrecondition(MSG), Status.Code.FAILED_PRECONDITION),
        Arguments.of(new DriverError.ResourceExhausted(MSG), Status.Code.RESOURCE_EXHAUSTED),
        Arguments.of(new DriverError.OutOfRange(MSG), Status.Code.OUT_OF_RANGE),
        Arguments.of(new DriverError.Aborted(MSG), Status.Code.ABORTED),
        Arguments.of(new DriverError.Unavailable(MSG), Status.Code.UNAVAILABLE),
        Arguments.of(new DriverError.DeadlineExceeded(MSG), Status.Code.DEADLINE_EXCEEDED),
        Arguments.of(new DriverError.PermissionDenied(MSG), Status.Code.PERMISSION_DENIED),
        Arguments.of(new DriverError.Unimplemented(MSG), Status.Code.UNIMPLEMENTED),
        Arguments.of(new DriverError.Internal(MSG), Status.Code.INTERNAL));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("variants")
  void eachVariantHasItsCodeAndKeepsItsMessage(DriverError error, Status.Code code) {
    Status status = GrpcErrors.toStatus(error);

    assertThat(status.getCode()).isEqualTo(code);
    assertThat(status.getDescription()).isEqualTo(MSG);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("variants")
  void aDriverExceptionBecomesTheStatusOfItsError(DriverError error, Status.Code code) {
    StatusRuntimeException e = GrpcErrors.toStatusException(new DriverException(error, new RuntimeException("cause")));

    assertThat(e.getStatus().getCode()).isEqualTo(code);
    assertThat(e.getStatus().getDescription()).isEqualTo(MSG);
    assertThat(e.getStatus().getCause()).as("the cause stays in the server log").isNull();
  }

  @Test
  void invalidArgumentIsPrefixedWithTheField() {
    Status status = GrpcErrors.toStatus(new DriverError.InvalidArgument("volume_capabilities[0].access_mode",
        "is required"));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).isEqualTo("volume_capabilities[0].access_mode: is required");
  }

  @Test
  void theTestListCoversEveryVariant() {
    List<Class<?>> listed = Stream.concat(variants().map(a -> a.get()[0].getClass()),
        Stream.of(DriverError.InvalidArgument.class)).<Class<?>>map(c -> c).toList();

    assertThat(listed).containsExactlyInAnyOrderElementsOf(Arrays.asList(DriverError.class.getPermittedSubclasses()));
  }

  @Test
  void anUnexpectedExceptionIsInternalWithTypeAndMessageButNoStackTrace() {
    IllegalStateException bug = new IllegalStateException("attachment table has two devices for vol-1");

    StatusRuntimeException e = GrpcErrors.toStatusException(bug);

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(e.getStatus().getDescription())
        .isEqualTo("unexpected IllegalStateException: attachment table has two devices for vol-1")
        .doesNotContain("\tat ")
        .doesNotContain(GrpcErrorsTest.class.getName());
    assertThat(e.getStatus().getCause()).isNull();
    assertThat(e.getCause()).isNull();
  }

  @Test
  void aStatusExceptionPassesThroughUnchanged() {
    StatusRuntimeException original = Status.RESOURCE_EXHAUSTED.withDescription("quota").asRuntimeException();

    assertThat(GrpcErrors.toStatusException(original)).isSameAs(original);
  }

  @Test
  void anInterruptedHandlerIsAbortedSoTheCallerRetries() {
    StatusRuntimeException e = GrpcErrors.toStatusException(new InterruptedException());

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(e.getStatus().getDescription()).contains("shutting down");
  }

  @Test
  void aHugeDescriptionIsCutToFitTheTrailerWithAMarker() {
    String huge = "mkfs said: " + "x".repeat(3 * 1024 * 1024);
    Status status = GrpcErrors.toStatus(new DriverError.Internal(huge));

    assertThat(status.getDescription()).startsWith("mkfs said: xxx").contains("[truncated: ")
        .hasSizeLessThanOrEqualTo(GrpcErrors.MAX_DESCRIPTION_BYTES);
  }

  @Test
  void nonAsciiIsBoundedByItsEncodedSize() {
    // Each of these percent-encodes to 9 bytes on the wire: 4096 characters would be 36 KiB.
    String wide = "\u20ac".repeat(4096);
    String description = GrpcErrors.toStatusException(new IllegalStateException(wide)).getStatus().getDescription();

    assertThat(description).contains("[truncated: ");
    assertThat(description.chars().filter(c -> c == '\u20ac').count() * 9).isLessThanOrEqualTo(4096);
  }

  @Test
  void aShortDescriptionAndAPassedThroughStatusAreKept() {
    assertThat(GrpcErrors.toStatus(new DriverError.NotFound(MSG)).getDescription()).isEqualTo(MSG);
    Status big = Status.UNAVAILABLE.withDescription("y".repeat(10_000));
    assertThat(GrpcErrors.toStatusException(big.asRuntimeException()).getStatus().getDescription())
        .hasSizeLessThanOrEqualTo(GrpcErrors.MAX_DESCRIPTION_BYTES);
    assertThat(GrpcErrors.sanitized(Status.OK)).isSameAs(Status.OK);
  }
}
