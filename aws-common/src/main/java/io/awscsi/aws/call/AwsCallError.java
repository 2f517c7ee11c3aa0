package io.awscsi.aws.call;

/**
 * What an AWS call (or the way to it) failed with, in the driver's own words, for EC2 and EFS alike: the Java form of
 * the upstream drivers' sentinel errors. Each service's error mapping ({@code Ec2ErrorCodes}, {@code EfsErrors}) is
 * the only place that builds these from AWS error codes; the controllers decide what each means for a CSI call.
 *
 * <p>The first records are meanings both services have; the later ones are meanings of one service's API, kept here
 * so that every caller switches over one closed set instead of matching code strings.
 */
public sealed interface AwsCallError {

  String message();

  /** The resource does not exist (also a malformed id, which can never exist); {@code id} is empty when unknown. */
  record NotFound(String resource, String id, String message) implements AwsCallError {}

  /** The API throttled the request (RequestLimitExceeded, ThrottlingException and friends); retried with backoff. */
  record Throttled(String code, String message) implements AwsCallError {}

  /** The service or the network failed (5xx, connection reset, no connection); retried with backoff. */
  record Unavailable(String code, String message) implements AwsCallError {}

  /** The caller's deadline passed while waiting, or the service did not answer before it; names the API. */
  record DeadlinePassed(String message) implements AwsCallError {}

  /** The waiting thread was interrupted (shutdown). */
  record Interrupted(String message) implements AwsCallError {}

  /** The credentials or role do not allow the call. */
  record AccessDenied(String code, String message) implements AwsCallError {}

  /** The service rejected a parameter value or combination, or the request as malformed. */
  record InvalidRequest(String code, String message) implements AwsCallError {}

  /** An account or volume limit (volumes, snapshots, IOPS, capacity) is reached. */
  record LimitExceeded(String code, String message) implements AwsCallError {}

  /** Any other answer, kept with its code for the operator. */
  record Unexpected(String code, String message) implements AwsCallError {}

  /** EC2: a ClientToken was reused with other parameters, or its earlier volume failed. */
  record IdempotentParameterMismatch(String message) implements AwsCallError {}

  /** EC2: the volume is attached (or attaching) and the call needs it free, or vice versa. */
  record VolumeInUse(String code, String message) implements AwsCallError {}

  /** EC2: the device name is already used on the instance. */
  record DeviceNameInUse(String message) implements AwsCallError {}

  /** EC2: the instance cannot take another volume. */
  record AttachmentLimitExceeded(String message) implements AwsCallError {}

  /** EC2: a modification of the volume is still modifying or optimizing. */
  record ModificationInProgress(String message) implements AwsCallError {}

  /** EC2: only a few modifications per volume are allowed in a time window. */
  record ModificationRateExceeded(String message) implements AwsCallError {}

  /** EC2: the snapshot is still used by an AMI or is locked. */
  record SnapshotInUse(String code, String message) implements AwsCallError {}

  /** EC2: a DryRun request would have succeeded. */
  record DryRunSucceeded(String message) implements AwsCallError {}

  /** EFS CreateAccessPoint: the client token was used before with other arguments; {@code accessPointId} is it. */
  record AccessPointAlreadyExists(String accessPointId, String message) implements AwsCallError {}

  /** EFS: the file system has as many access points as its quota allows. */
  record AccessPointLimitExceeded(String fileSystemId, String message) implements AwsCallError {}

  /** EFS: the resource is in a state that does not allow the call (a file system still creating or deleting). */
  record IncorrectState(String message) implements AwsCallError {}

  /** Whether another attempt of the same request may succeed without anything else changing. */
  default boolean retryable() {
    return this instanceof Throttled || this instanceof Unavailable;
  }

  /**
   * Whether the failure means the service did not answer (unreachable, server fault, no answer in time) or refused the
   * driver's credentials: what readiness reports. Every other error is an answer.
   */
  default boolean unanswered() {
    return this instanceof Unavailable || this instanceof DeadlinePassed || this instanceof AccessDenied;
  }
}
