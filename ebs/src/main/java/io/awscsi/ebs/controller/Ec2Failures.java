package io.awscsi.ebs.controller;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.ebs.cloud.CloudError;
import io.awscsi.ebs.cloud.CloudException;

/**
 * The default meaning of an EC2 failure for a CSI call. Operations that give an error a special meaning (a missing
 * volume on delete, a mismatched ClientToken on create) handle it before asking here.
 */
final class Ec2Failures {

  private Ec2Failures() {}

  /** {@code doing} says what was being done, e.g. "AttachVolume of vol-1 to i-2". */
  static DriverException toDriver(CloudException failure, String doing) {
    String m = doing + ": " + failure.error().message();
    DriverError error = switch (failure.error()) {
      case CloudError.NotFound e -> new DriverError.NotFound(m);
      case CloudError.InvalidParameter e -> new DriverError.InvalidArgument("parameters", m);
      case CloudError.IdempotentParameterMismatch e -> new DriverError.AlreadyExists(m);
      case CloudError.VolumeInUse e -> new DriverError.FailedPrecondition(m);
      case CloudError.DeviceNameInUse e -> new DriverError.Unavailable(m + "; a new device name is tried on retry");
      case CloudError.AttachmentLimitExceeded e -> new DriverError.ResourceExhausted(m);
      case CloudError.LimitExceeded e -> new DriverError.ResourceExhausted(m + "; raise the EC2 quota or free some");
      case CloudError.ModificationInProgress e -> new DriverError.Unavailable(m
          + "; the previous modification must reach optimizing or completed first");
      case CloudError.ModificationRateExceeded e -> new DriverError.ResourceExhausted(m
          + "; EC2 allows only a few modifications per volume per day");
      case CloudError.SnapshotInUse e -> new DriverError.FailedPrecondition(m);
      case CloudError.Throttled e -> new DriverError.Unavailable(m + "; EC2 kept throttling until the deadline");
      case CloudError.ServiceUnavailable e -> new DriverError.Unavailable(m);
      case CloudError.AccessDenied e -> new DriverError.PermissionDenied(m
          + "; check the controller's IAM role allows this action");
      case CloudError.DeadlinePassed e -> new DriverError.DeadlineExceeded(m);
      case CloudError.Interrupted e -> new DriverError.Aborted(m);
      case CloudError.DryRunSucceeded e -> new DriverError.Internal(m);
      case CloudError.Other e -> new DriverError.Internal(m);
    };
    return new DriverException(error, failure);
  }
}
