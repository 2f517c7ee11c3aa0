package io.awscsi.ebs.controller;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;

/**
 * The default meaning of an EC2 failure for a CSI call. Operations that give an error a special meaning (a missing
 * volume on delete, a mismatched ClientToken on create) handle it before asking here.
 */
final class Ec2Failures {

  private Ec2Failures() {}

  /** {@code doing} says what was being done, e.g. "AttachVolume of vol-1 to i-2". */
  static DriverException toDriver(AwsCallException failure, String doing) {
    String m = doing + ": " + failure.error().message();
    DriverError error = switch (failure.error()) {
      case AwsCallError.NotFound e -> new DriverError.NotFound(m);
      case AwsCallError.InvalidRequest e -> new DriverError.InvalidArgument("parameters", m);
      case AwsCallError.IdempotentParameterMismatch e -> new DriverError.AlreadyExists(m);
      case AwsCallError.VolumeInUse e -> new DriverError.FailedPrecondition(m);
      case AwsCallError.DeviceNameInUse e -> new DriverError.Unavailable(m + "; a new device name is tried on retry");
      case AwsCallError.AttachmentLimitExceeded e -> new DriverError.ResourceExhausted(m);
      case AwsCallError.LimitExceeded e -> new DriverError.ResourceExhausted(m + "; raise the EC2 quota or free some");
      case AwsCallError.ModificationInProgress e -> new DriverError.Unavailable(m
          + "; the previous modification must reach optimizing or completed first");
      case AwsCallError.ModificationRateExceeded e -> new DriverError.ResourceExhausted(m
          + "; EC2 allows only a few modifications per volume per day");
      case AwsCallError.SnapshotInUse e -> new DriverError.FailedPrecondition(m);
      case AwsCallError.Throttled e -> new DriverError.Unavailable(m + "; EC2 kept throttling until the deadline");
      case AwsCallError.Unavailable e -> new DriverError.Unavailable(m);
      case AwsCallError.AccessDenied e -> new DriverError.PermissionDenied(m
          + "; check the controller's IAM role allows this action");
      case AwsCallError.DeadlinePassed e -> new DriverError.DeadlineExceeded(m);
      case AwsCallError.Interrupted e -> new DriverError.Aborted(m);
      case AwsCallError.DryRunSucceeded e -> new DriverError.Internal(m);
      case AwsCallError.Unexpected e -> new DriverError.Internal(m);
      // EFS's own meanings: EC2's mapping never builds them.
      case AwsCallError.AccessPointAlreadyExists e -> new DriverError.Internal(m);
      case AwsCallError.AccessPointLimitExceeded e -> new DriverError.Internal(m);
      case AwsCallError.IncorrectState e -> new DriverError.Internal(m);
    };
    return new DriverException(error, failure);
  }
}
