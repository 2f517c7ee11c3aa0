package io.awscsi.ebs.cloud;

/**
 * What EC2 (or the way to it) answered, in the driver's own words: the Java form of upstream's sentinel errors. Only
 * {@link Ec2ErrorCodes} builds these from EC2 error codes; the controller decides what each means for a CSI call.
 */
public sealed interface CloudError {

  String message();

  /** The resource does not exist (also a malformed id, which can never exist). */
  record NotFound(String resource, String message) implements CloudError {}

  /** A ClientToken was reused with other parameters, or its earlier volume failed. */
  record IdempotentParameterMismatch(String message) implements CloudError {}

  /** EC2 rejected a parameter value or combination. */
  record InvalidParameter(String code, String message) implements CloudError {}

  /** The volume is attached (or attaching) and the call needs it free, or vice versa. */
  record VolumeInUse(String code, String message) implements CloudError {}

  /** The device name is already used on the instance. */
  record DeviceNameInUse(String message) implements CloudError {}

  /** The instance cannot take another volume. */
  record AttachmentLimitExceeded(String message) implements CloudError {}

  /** An account or volume limit (volumes, snapshots, IOPS, capacity) is reached. */
  record LimitExceeded(String code, String message) implements CloudError {}

  /** A modification of the volume is still modifying or optimizing. */
  record ModificationInProgress(String message) implements CloudError {}

  /** EC2 allows only a few modifications per volume in a time window. */
  record ModificationRateExceeded(String message) implements CloudError {}

  /** The snapshot is still used by an AMI or is locked. */
  record SnapshotInUse(String code, String message) implements CloudError {}

  /** EC2 throttled the request (RequestLimitExceeded and friends); retried with backoff. */
  record Throttled(String code, String message) implements CloudError {}

  /** EC2 or the network failed (5xx, connection reset, timeout); retried with backoff. */
  record ServiceUnavailable(String code, String message) implements CloudError {}

  /** The credentials or role do not allow the call. */
  record AccessDenied(String code, String message) implements CloudError {}

  /** A DryRun request would have succeeded. */
  record DryRunSucceeded(String message) implements CloudError {}

  /** The caller's deadline passed while waiting. */
  record DeadlinePassed(String message) implements CloudError {}

  /** The waiting thread was interrupted (shutdown). */
  record Interrupted(String message) implements CloudError {}

  /** Any other answer, kept with its code for the operator. */
  record Other(String code, String message) implements CloudError {}

  /** Whether another attempt of the same request may succeed without anything else changing. */
  default boolean retryable() {
    return this instanceof Throttled || this instanceof ServiceUnavailable;
  }
}
