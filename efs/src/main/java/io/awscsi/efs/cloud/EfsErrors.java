package io.awscsi.efs.cloud;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.AwsErrorMapping;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.efs.model.AccessPointAlreadyExistsException;
import software.amazon.awssdk.services.efs.model.AccessPointLimitExceededException;
import software.amazon.awssdk.services.efs.model.AccessPointNotFoundException;
import software.amazon.awssdk.services.efs.model.BadRequestException;
import software.amazon.awssdk.services.efs.model.FileSystemNotFoundException;
import software.amazon.awssdk.services.efs.model.IncorrectFileSystemLifeCycleStateException;
import software.amazon.awssdk.services.efs.model.MountTargetNotFoundException;
import software.amazon.awssdk.services.efs.model.ValidationException;

/**
 * The one place where SDK exceptions and AWS error codes become {@link AwsCallError}s: EFS's mapping for the shared
 * {@link io.awscsi.aws.call.AwsCallRunner}.
 */
final class EfsErrors implements AwsErrorMapping {

  /** The mapping the EFS call runner uses. */
  static final EfsErrors MAPPING = new EfsErrors();

  private static final Set<String> THROTTLING_CODES = Set.of("ThrottlingException", "Throttling", "TooManyRequests",
      "TooManyRequestsException", "RequestLimitExceeded", "RequestThrottled", "SlowDown");
  private static final Set<String> ACCESS_DENIED_CODES = Set.of("AccessDeniedException", "AccessDenied",
      "UnauthorizedOperation", "UnrecognizedClientException", "InvalidClientTokenId", "ExpiredTokenException",
      "ExpiredToken");

  private EfsErrors() {}

  /**
   * Classifies a failed call.
   *
   * @param resourceId the id the call was about (file system or access point), named in NotFound messages
   */
  @Override
  public AwsCallError classify(String api, String resourceId, RuntimeException failure) {
    return failure instanceof SdkException e ? errorOf(resourceId, e)
        : new AwsCallError.Unexpected(failure.getClass().getSimpleName(), String.valueOf(failure.getMessage()));
  }

  /** The error label of the error counter: the AWS error code, or the SDK exception's class without one. */
  @Override
  public String metricCode(AwsCallError error, RuntimeException failure) {
    if (failure instanceof AwsServiceException s && s.awsErrorDetails() != null
        && s.awsErrorDetails().errorCode() != null) {
      return s.awsErrorDetails().errorCode();
    }
    return failure.getClass().getSimpleName();
  }

  static AwsCallError errorOf(String resourceId, SdkException failure) {
    String detail = failure.getMessage();
    return switch (failure) {
      case AccessPointAlreadyExistsException e ->
          new AwsCallError.AccessPointAlreadyExists(e.accessPointId() == null ? "" : e.accessPointId(), detail);
      case AccessPointLimitExceededException e -> new AwsCallError.AccessPointLimitExceeded(resourceId, detail);
      case AccessPointNotFoundException e -> new AwsCallError.NotFound("access point", resourceId, detail);
      case FileSystemNotFoundException e -> new AwsCallError.NotFound("file system", resourceId, detail);
      case MountTargetNotFoundException e -> new AwsCallError.NotFound("mount target", resourceId, detail);
      case BadRequestException e -> new AwsCallError.InvalidRequest("BadRequest", detail);
      case ValidationException e -> new AwsCallError.InvalidRequest("ValidationException", detail);
      case IncorrectFileSystemLifeCycleStateException e -> new AwsCallError.IncorrectState(detail);
      case AwsServiceException e -> byCode(resourceId, e);
      case ApiCallTimeoutException e -> new AwsCallError.DeadlinePassed("EFS did not answer before the call's "
          + "deadline: " + detail);
      case SdkClientException e -> new AwsCallError.Unavailable("ClientError", "no answer from EFS: " + detail);
      default -> new AwsCallError.Unexpected(failure.getClass().getSimpleName(), detail);
    };
  }

  private static AwsCallError byCode(String resourceId, AwsServiceException e) {
    String code = e.awsErrorDetails() == null || e.awsErrorDetails().errorCode() == null
        ? "" : e.awsErrorDetails().errorCode();
    String detail = e.getMessage();
    if (e.isThrottlingException() || THROTTLING_CODES.contains(code)) {
      return new AwsCallError.Throttled(code, detail);
    }
    if (ACCESS_DENIED_CODES.contains(code)) {
      return new AwsCallError.AccessDenied(code, detail);
    }
    return switch (code) {
      case "AccessPointNotFound" -> new AwsCallError.NotFound("access point", resourceId, detail);
      case "FileSystemNotFound" -> new AwsCallError.NotFound("file system", resourceId, detail);
      case "MountTargetNotFound" -> new AwsCallError.NotFound("mount target", resourceId, detail);
      case "AccessPointLimitExceeded" -> new AwsCallError.AccessPointLimitExceeded(resourceId, detail);
      case "AccessPointAlreadyExists" -> new AwsCallError.AccessPointAlreadyExists("", detail);
      case "BadRequest", "ValidationException" -> new AwsCallError.InvalidRequest(code, detail);
      case "IncorrectFileSystemLifeCycleState" -> new AwsCallError.IncorrectState(detail);
      default -> e.statusCode() >= 500
          ? new AwsCallError.Unavailable(code, "EFS answered " + e.statusCode() + ": " + detail)
          : e.statusCode() == 403 ? new AwsCallError.AccessDenied(code, detail)
          : new AwsCallError.Unexpected(code, detail);
    };
  }
}
