package io.awscsi.efs.cloud;

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

/** The one place where SDK exceptions and AWS error codes become {@link CloudError}s. */
final class EfsErrors {

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
  static EfsCloudException classify(String operation, String resourceId, SdkException failure) {
    return new EfsCloudException(operation, errorOf(resourceId, failure), failure);
  }

  static CloudError errorOf(String resourceId, SdkException failure) {
    String detail = failure.getMessage();
    return switch (failure) {
      case AccessPointAlreadyExistsException e ->
          new CloudError.AccessPointAlreadyExists(e.accessPointId() == null ? "" : e.accessPointId(), detail);
      case AccessPointLimitExceededException e -> new CloudError.AccessPointLimitExceeded(resourceId, detail);
      case AccessPointNotFoundException e -> new CloudError.NotFound("access point", resourceId, detail);
      case FileSystemNotFoundException e -> new CloudError.NotFound("file system", resourceId, detail);
      case MountTargetNotFoundException e -> new CloudError.NotFound("mount target", resourceId, detail);
      case BadRequestException e -> new CloudError.InvalidRequest(detail);
      case ValidationException e -> new CloudError.InvalidRequest(detail);
      case IncorrectFileSystemLifeCycleStateException e -> new CloudError.IncorrectState(detail);
      case AwsServiceException e -> byCode(resourceId, e);
      case ApiCallTimeoutException e -> new CloudError.NoAnswer("EFS did not answer before the call's deadline: "
          + detail);
      case SdkClientException e -> new CloudError.Unavailable("no answer from EFS: " + detail);
      default -> new CloudError.Unexpected(failure.getClass().getSimpleName(), detail);
    };
  }

  private static CloudError byCode(String resourceId, AwsServiceException e) {
    String code = e.awsErrorDetails() == null || e.awsErrorDetails().errorCode() == null
        ? "" : e.awsErrorDetails().errorCode();
    String detail = e.getMessage();
    if (e.isThrottlingException() || THROTTLING_CODES.contains(code)) {
      return new CloudError.Throttled(detail);
    }
    if (ACCESS_DENIED_CODES.contains(code)) {
      return new CloudError.AccessDenied(detail);
    }
    return switch (code) {
      case "AccessPointNotFound" -> new CloudError.NotFound("access point", resourceId, detail);
      case "FileSystemNotFound" -> new CloudError.NotFound("file system", resourceId, detail);
      case "MountTargetNotFound" -> new CloudError.NotFound("mount target", resourceId, detail);
      case "AccessPointLimitExceeded" -> new CloudError.AccessPointLimitExceeded(resourceId, detail);
      case "AccessPointAlreadyExists" -> new CloudError.AccessPointAlreadyExists("", detail);
      case "BadRequest", "ValidationException" -> new CloudError.InvalidRequest(detail);
      case "IncorrectFileSystemLifeCycleState" -> new CloudError.IncorrectState(detail);
      default -> e.statusCode() >= 500
          ? new CloudError.Unavailable("EFS answered " + e.statusCode() + ": " + detail)
          : e.statusCode() == 403 ? new CloudError.AccessDenied(detail) : new CloudError.Unexpected(code, detail);
    };
  }
}
