package io.awscsi.ebs.cloud;

import java.util.Locale;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;

/** The one place where EC2 error codes (and SDK failures) become {@link CloudError}s. */
public final class Ec2ErrorCodes {

  /** The SDK's throttling codes plus EC2's own: all answered by backing off. */
  static final Set<String> THROTTLING = Set.of("RequestLimitExceeded", "Throttling", "ThrottlingException",
      "ThrottledException", "RequestThrottledException", "TooManyRequestsException", "RequestThrottled",
      "SlowDown", "PriorRequestNotComplete", "EC2ThrottledException", "BandwidthLimitExceeded",
      "ProvisionedThroughputExceededException", "TransactionInProgressException");

  private static final Set<String> SERVER_FAULTS = Set.of("InternalError", "InternalFailure", "ServiceUnavailable",
      "Unavailable", "ServerInternal");

  private static final Set<String> ACCESS = Set.of("UnauthorizedOperation", "AuthFailure", "OptInRequired",
      "InvalidClientTokenId", "SignatureDoesNotMatch", "Blocked", "AccessDenied", "AccessDeniedException",
      "UnrecognizedClientException", "ExpiredToken", "RequestExpired");

  private static final Set<String> LIMITS = Set.of("VolumeLimitExceeded", "SnapshotLimitExceeded",
      "MaxIOPSLimitExceeded", "InsufficientVolumeCapacity", "ResourceLimitExceeded",
      "SnapshotCreationPerVolumeRateExceeded", "ConcurrentSnapshotLimitExceeded");

  private static final Set<String> INVALID = Set.of("InvalidParameterValue", "InvalidParameter",
      "InvalidParameterCombination", "MissingParameter", "UnknownVolumeType", "InvalidZone.NotFound",
      "InvalidVolume.ZoneMismatch", "InvalidParameterDependency", "UnsupportedOperation", "InvalidRequest",
      "KMSKeyNotAccessible", "InvalidKMSKey.NotFound", "InvalidKMSKey.InvalidState", "InvalidNextToken",
      "InvalidPaginationToken", "InvalidAvailabilityZone", "InvalidSnapshot.Unsupported", "TagLimitExceeded",
      "InvalidTagKey.Malformed", "InvalidParameterValue.TagValue");

  private Ec2ErrorCodes() {}

  /** Classifies anything the SDK threw. */
  public static CloudError classify(Throwable failure) {
    return switch (failure) {
      case CloudException e -> e.error();
      case AwsServiceException e -> classify(code(e), message(e), e.statusCode());
      case ApiCallTimeoutException e -> new CloudError.DeadlinePassed("EC2 call timed out at the caller's deadline: "
          + e.getMessage());
      case SdkClientException e -> new CloudError.ServiceUnavailable("ClientError",
          "could not reach EC2: " + e.getMessage());
      case SdkException e -> new CloudError.ServiceUnavailable("SdkError", e.getMessage());
      default -> new CloudError.Other(failure.getClass().getSimpleName(), String.valueOf(failure.getMessage()));
    };
  }

  /**
   * Whether a failure means EC2 did not answer (unreachable, server fault, no answer in time) or refused the
   * driver's credentials: what readiness reports. Every other error is an answer.
   */
  static boolean unanswered(CloudError error) {
    return error instanceof CloudError.ServiceUnavailable || error instanceof CloudError.DeadlinePassed
        || error instanceof CloudError.AccessDenied;
  }

  /** Classifies an EC2 error code with its message and HTTP status. */
  public static CloudError classify(String code, String message, int httpStatus) {
    String text = code + ": " + message;
    if (THROTTLING.contains(code) || httpStatus == 429) {
      return new CloudError.Throttled(code, text);
    }
    if (code.equals("DryRunOperation")) {
      return new CloudError.DryRunSucceeded(text);
    }
    if (code.equals("IdempotentParameterMismatch")) {
      return new CloudError.IdempotentParameterMismatch(text);
    }
    if (code.equals("AttachmentLimitExceeded")) {
      return new CloudError.AttachmentLimitExceeded(text);
    }
    if (code.equals("IncorrectModificationState")) {
      return new CloudError.ModificationInProgress(text);
    }
    if (code.equals("VolumeModificationRateExceeded")) {
      return new CloudError.ModificationRateExceeded(text);
    }
    if (code.equals("VolumeInUse") || code.equals("IncorrectState")) {
      return new CloudError.VolumeInUse(code, text);
    }
    if (code.equals("InvalidSnapshot.InUse") || code.startsWith("SnapshotLocked")) {
      return new CloudError.SnapshotInUse(code, text);
    }
    if (code.equals("InvalidParameterValue") && message.toLowerCase(Locale.ROOT).contains("already in use")) {
      return new CloudError.DeviceNameInUse(text);
    }
    if (INVALID.contains(code)) {
      return new CloudError.InvalidParameter(code, text);
    }
    if (code.endsWith(".NotFound") || code.endsWith(".Malformed") || code.equals("InvalidID")) {
      return new CloudError.NotFound(resource(code), text);
    }
    if (code.equals("IncorrectInstanceState")) {
      // An instance that is terminated or shutting down takes no volume: to a CSI caller the node is gone.
      return new CloudError.NotFound("instance", text);
    }
    if (LIMITS.contains(code)) {
      return new CloudError.LimitExceeded(code, text);
    }
    if (ACCESS.contains(code) || httpStatus == 401 || httpStatus == 403) {
      return new CloudError.AccessDenied(code, text);
    }
    if (SERVER_FAULTS.contains(code) || httpStatus >= 500) {
      return new CloudError.ServiceUnavailable(code, text);
    }
    return new CloudError.Other(code, text);
  }

  private static String resource(String code) {
    String prefix = code.contains(".") ? code.substring(0, code.indexOf('.')) : code;
    return switch (prefix) {
      case "InvalidVolume", "InvalidVolumeID" -> "volume";
      case "InvalidInstanceID" -> "instance";
      case "InvalidSnapshot", "InvalidSnapshotID" -> "snapshot";
      case "InvalidVolumeModification" -> "volume modification";
      case "InvalidAttachment" -> "attachment";
      default -> prefix.startsWith("Invalid") ? prefix.substring("Invalid".length()).toLowerCase(Locale.ROOT)
          : "resource";
    };
  }

  private static String code(AwsServiceException e) {
    return e.awsErrorDetails() != null && e.awsErrorDetails().errorCode() != null
        ? e.awsErrorDetails().errorCode() : "HTTP" + e.statusCode();
  }

  private static String message(AwsServiceException e) {
    return e.awsErrorDetails() != null && e.awsErrorDetails().errorMessage() != null
        ? e.awsErrorDetails().errorMessage() : String.valueOf(e.getMessage());
  }
}
