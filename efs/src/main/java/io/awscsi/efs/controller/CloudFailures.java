package io.awscsi.efs.controller;

import io.awscsi.core.errors.DriverException;
import io.awscsi.efs.cloud.CloudError;
import io.awscsi.efs.cloud.EfsCloudException;

/** The one place where classified EFS failures become CSI errors, with what the operator can do about each. */
final class CloudFailures {

  private CloudFailures() {}

  /**
   * Maps a failure.
   *
   * @param doing what the driver was doing, e.g. "creating an access point for volume pvc-1 on fs-1234"
   */
  static DriverException toDriver(EfsCloudException e, String doing) {
    String what = doing + ": " + e.operation() + " failed: " + e.error().message();
    return switch (e.error()) {
      case CloudError.NotFound n when n.resource().equals("file system") -> DriverException.invalidArgument(
          "parameters", "file system " + n.id() + " does not exist (" + doing + "); check fileSystemId and the "
              + "region, or the awsRoleArn of a cross-account file system");
      case CloudError.NotFound n -> DriverException.notFound(what);
      case CloudError.AccessPointAlreadyExists a -> DriverException.alreadyExists(what);
      case CloudError.AccessPointLimitExceeded l -> DriverException.resourceExhausted(doing + ": file system "
          + l.fileSystemId() + " has reached its access-point quota (AccessPointLimitExceeded); raise the "
          + "'Access points per file system' quota in Service Quotas, delete unused volumes, or use provisioningMode "
          + "efs-dir, which needs no access point");
      case CloudError.Throttled t -> DriverException.unavailable(what + "; EFS is throttling this account, the call "
          + "will be retried");
      case CloudError.AccessDenied a -> DriverException.permissionDenied(what + "; grant the controller's IAM role "
          + "(or the awsRoleArn of the StorageClass secret) the elasticfilesystem permissions of the IAM policy");
      case CloudError.InvalidRequest i -> DriverException.invalidArgument("parameters", what);
      case CloudError.IncorrectState s -> DriverException.failedPrecondition(what + "; wait until the file system "
          + "is available");
      case CloudError.Unavailable u -> DriverException.unavailable(what + "; the call will be retried");
      case CloudError.NoAnswer n -> DriverException.deadlineExceeded(doing + ": " + n.message()
          + "; the call will be retried");
      case CloudError.Unexpected u -> DriverException.internal(what);
    };
  }
}
