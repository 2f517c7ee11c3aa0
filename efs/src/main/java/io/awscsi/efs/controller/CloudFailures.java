package io.awscsi.efs.controller;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.core.errors.DriverException;

/** The one place where classified EFS failures become CSI errors, with what the operator can do about each. */
final class CloudFailures {

  private CloudFailures() {}

  /**
   * Maps a failure.
   *
   * @param doing what the driver was doing, e.g. "creating an access point for volume pvc-1 on fs-1234"
   */
  static DriverException toDriver(AwsCallException e, String doing) {
    String what = doing + ": " + e.operation() + " failed: " + e.error().message();
    return switch (e.error()) {
      case AwsCallError.NotFound n when n.resource().equals("file system") -> DriverException.invalidArgument(
          "parameters", "file system " + n.id() + " does not exist (" + doing + "); check fileSystemId and the "
              + "region, or the awsRoleArn of a cross-account file system");
      case AwsCallError.NotFound n -> DriverException.notFound(what);
      case AwsCallError.AccessPointAlreadyExists a -> DriverException.alreadyExists(what);
      case AwsCallError.AccessPointLimitExceeded l -> DriverException.resourceExhausted(doing + ": file system "
          + l.fileSystemId() + " has reached its access-point quota (AccessPointLimitExceeded); raise the "
          + "'Access points per file system' quota in Service Quotas, delete unused volumes, or use provisioningMode "
          + "efs-dir, which needs no access point");
      case AwsCallError.Throttled t -> DriverException.unavailable(what + "; EFS is throttling this account, the call "
          + "will be retried");
      case AwsCallError.AccessDenied a -> DriverException.permissionDenied(what + "; grant the controller's IAM role "
          + "(or the awsRoleArn of the StorageClass secret) the elasticfilesystem permissions of the IAM policy");
      case AwsCallError.InvalidRequest i -> DriverException.invalidArgument("parameters", what);
      case AwsCallError.IncorrectState s -> DriverException.failedPrecondition(what + "; wait until the file system "
          + "is available");
      case AwsCallError.Unavailable u -> DriverException.unavailable(what + "; the call will be retried");
      case AwsCallError.DeadlinePassed n -> DriverException.deadlineExceeded(doing + ": " + n.message()
          + "; the call will be retried");
      case AwsCallError.Interrupted i -> DriverException.deadlineExceeded(doing + ": " + i.message()
          + "; the call will be retried");
      case AwsCallError.Unexpected u -> DriverException.internal(what);
      // EC2's own meanings: EFS's mapping never builds them.
      case AwsCallError.LimitExceeded l -> DriverException.internal(what);
      case AwsCallError.IdempotentParameterMismatch m -> DriverException.internal(what);
      case AwsCallError.VolumeInUse v -> DriverException.internal(what);
      case AwsCallError.DeviceNameInUse d -> DriverException.internal(what);
      case AwsCallError.AttachmentLimitExceeded a -> DriverException.internal(what);
      case AwsCallError.ModificationInProgress m -> DriverException.internal(what);
      case AwsCallError.ModificationRateExceeded m -> DriverException.internal(what);
      case AwsCallError.SnapshotInUse s -> DriverException.internal(what);
      case AwsCallError.DryRunSucceeded d -> DriverException.internal(what);
    };
  }
}
