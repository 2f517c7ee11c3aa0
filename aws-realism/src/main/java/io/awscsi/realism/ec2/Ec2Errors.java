package io.awscsi.realism.ec2;

import io.awscsi.realism.AwsError;
import io.awscsi.realism.proxy.AwsErrorException;

/** The EC2 errors the proxy produces, worded as EC2 words them. */
final class Ec2Errors {

  private Ec2Errors() {}

  static AwsErrorException volumeNotFound(String volumeId) {
    return AwsErrorException.badRequest("InvalidVolume.NotFound", "The volume '" + volumeId + "' does not exist.");
  }

  static AwsErrorException instanceNotFound(String instanceId) {
    return AwsErrorException.badRequest("InvalidInstanceID.NotFound",
        "The instance ID '" + instanceId + "' does not exist");
  }

  static AwsErrorException snapshotNotFound(String snapshotId) {
    return AwsErrorException.badRequest("InvalidSnapshot.NotFound",
        "The snapshot '" + snapshotId + "' does not exist.");
  }

  static AwsErrorException missingParameter(String name) {
    return AwsErrorException.badRequest("MissingParameter",
        "The request must contain the parameter " + name);
  }

  static AwsErrorException invalidParameterValue(String message) {
    return AwsErrorException.badRequest("InvalidParameterValue", message);
  }

  /** An OutpostArn parameter that is not {@code arn:<partition>:outposts:<region>:<account>:outpost/op-<id>}. */
  static AwsErrorException invalidOutpostArn(String value) {
    return AwsErrorException.badRequest("InvalidParameterValue", "Value (" + value + ") for parameter outpostArn "
        + "is invalid. Expected arn:<partition>:outposts:<region>:<account>:outpost/op-<id>.");
  }

  static AwsErrorException incorrectState(String message) {
    return AwsErrorException.badRequest("IncorrectState", message);
  }

  static AwsErrorException volumeInUse(String message) {
    return AwsErrorException.badRequest("VolumeInUse", message);
  }

  static AwsErrorException idempotentParameterMismatch(String clientToken) {
    return AwsErrorException.badRequest("IdempotentParameterMismatch", "The client token '" + clientToken
        + "' was already used with different parameters; use a new token for a different request.");
  }

  static AwsErrorException parameterCombination(String listParameter) {
    return AwsErrorException.badRequest("InvalidParameterCombination",
        "The parameter " + listParameter + " cannot be used with the parameter maxResults");
  }

  static AwsErrorException invalidPaginationToken(String token) {
    return AwsErrorException.badRequest("InvalidPaginationToken",
        "The pagination token '" + token + "' is not valid for this request or has expired.");
  }

  static AwsError requestLimitExceeded() {
    return AwsError.of(503, "RequestLimitExceeded", "Request limit exceeded.");
  }
}
