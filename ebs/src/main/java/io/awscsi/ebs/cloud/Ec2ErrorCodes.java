package io.awscsi.ebs.cloud;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.AwsErrorMapping;
import java.util.Locale;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The one place where EC2 error codes (and SDK failures) become {@link AwsCallError}s: EC2's mapping for the shared
 * {@link io.awscsi.aws.call.AwsCallRunner}.
 */
public final class Ec2ErrorCodes implements AwsErrorMapping {

  /** The mapping the EC2 call runner uses. */
  static final Ec2ErrorCodes MAPPING = new Ec2ErrorCodes();

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
  public static AwsCallError classify(Throwable failure) {
    return switch (failure) {
      case AwsCallException e -> e.error();
      case AwsServiceException e -> classify(code(e), message(e), e.statusCode());
      case ApiCallTimeoutException e -> new AwsCallError.DeadlinePassed("EC2 call timed out at the caller's deadline: "
          + e.getMessage());
      case SdkClientException e -> new AwsCallError.Unavailable("ClientError",
          "could not reach EC2: " + e.getMessage());
      case SdkException e -> new AwsCallError.Unavailable("SdkError", e.getMessage());
      default -> new AwsCallError.Unexpected(failure.getClass().getSimpleName(), String.valueOf(failure.getMessage()));
    };
  }

  /** Classifies a failed request of {@code api}; a failure without any connection names the API. */
  @Override
  public AwsCallError classify(String api, String resourceId, RuntimeException failure) {
    AwsCallError error = classify(failure);
    return error instanceof AwsCallError.Unavailable e && e.code().equals("ClientError")
        ? new AwsCallError.Unavailable(e.code(), "EC2 " + api + " got no answer: " + e.message()) : error;
  }

  /** The code label of upstream's error counter. */
  @Override
  public String metricCode(AwsCallError error, RuntimeException failure) {
    return switch (error) {
      case AwsCallError.NotFound e -> e.message().contains(":")
          ? e.message().substring(0, e.message().indexOf(':')) : "NotFound";
      case AwsCallError.InvalidRequest e -> e.code();
      case AwsCallError.VolumeInUse e -> e.code();
      case AwsCallError.LimitExceeded e -> e.code();
      case AwsCallError.SnapshotInUse e -> e.code();
      case AwsCallError.Throttled e -> e.code();
      case AwsCallError.Unavailable e -> e.code();
      case AwsCallError.AccessDenied e -> e.code();
      case AwsCallError.Unexpected e -> e.code();
      case AwsCallError.IdempotentParameterMismatch e -> "IdempotentParameterMismatch";
      case AwsCallError.DeviceNameInUse e -> "InvalidParameterValue";
      case AwsCallError.AttachmentLimitExceeded e -> "AttachmentLimitExceeded";
      case AwsCallError.ModificationInProgress e -> "IncorrectModificationState";
      case AwsCallError.ModificationRateExceeded e -> "VolumeModificationRateExceeded";
      case AwsCallError.DryRunSucceeded e -> "DryRunOperation";
      case AwsCallError.DeadlinePassed e -> "DeadlineExceeded";
      case AwsCallError.Interrupted e -> "Interrupted";
      // EFS's own meanings: EC2's mapping never builds them.
      case AwsCallError.AccessPointAlreadyExists e -> "AccessPointAlreadyExists";
      case AwsCallError.AccessPointLimitExceeded e -> "AccessPointLimitExceeded";
      case AwsCallError.IncorrectState e -> "IncorrectState";
    };
  }

  /** Classifies an EC2 error code with its message and HTTP status. */
  public static AwsCallError classify(String code, String message, int httpStatus) {
    String text = code + ": " + message;
    if (THROTTLING.contains(code) || httpStatus == 429) {
      return new AwsCallError.Throttled(code, text);
    }
    if (code.equals("DryRunOperation")) {
      return new AwsCallError.DryRunSucceeded(text);
    }
    if (code.equals("IdempotentParameterMismatch")) {
      return new AwsCallError.IdempotentParameterMismatch(text);
    }
    if (code.equals("AttachmentLimitExceeded")) {
      return new AwsCallError.AttachmentLimitExceeded(text);
    }
    if (code.equals("IncorrectModificationState")) {
      return new AwsCallError.ModificationInProgress(text);
    }
    if (code.equals("VolumeModificationRateExceeded")) {
      return new AwsCallError.ModificationRateExceeded(text);
    }
    if (code.equals("VolumeInUse") || code.equals("IncorrectState")) {
      return new AwsCallError.VolumeInUse(code, text);
    }
    if (code.equals("InvalidSnapshot.InUse") || code.startsWith("SnapshotLocked")) {
      return new AwsCallError.SnapshotInUse(code, text);
    }
    if (code.equals("InvalidParameterValue") && message.toLowerCase(Locale.ROOT).contains("already in use")) {
      return new AwsCallError.DeviceNameInUse(text);
    }
    if (INVALID.contains(code)) {
      return new AwsCallError.InvalidRequest(code, text);
    }
    if (code.endsWith(".NotFound") || code.endsWith(".Malformed") || code.equals("InvalidID")) {
      return new AwsCallError.NotFound(resource(code), "", text);
    }
    if (code.equals("IncorrectInstanceState")) {
      // An instance that is terminated or shutting down takes no volume: to a CSI caller the node is gone.
      return new AwsCallError.NotFound("instance", "", text);
    }
    if (LIMITS.contains(code)) {
      return new AwsCallError.LimitExceeded(code, text);
    }
    if (ACCESS.contains(code) || httpStatus == 401 || httpStatus == 403) {
      return new AwsCallError.AccessDenied(code, text);
    }
    if (SERVER_FAULTS.contains(code) || httpStatus >= 500) {
      return new AwsCallError.Unavailable(code, text);
    }
    return new AwsCallError.Unexpected(code, text);
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
