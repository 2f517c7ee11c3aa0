package io.awscsi.efs.cloud;

/**
 * What an EFS call can fail with, in the driver's words. AWS error codes become one of these in {@link EfsErrors}
 * and nowhere else, so callers switch over a closed set instead of matching strings.
 */
public sealed interface CloudError {

  String message();

  /** The file system, access point or mount target does not exist. */
  record NotFound(String resource, String id, String message) implements CloudError {}

  /** CreateAccessPoint: the client token was used before with other arguments; {@code accessPointId} is that one. */
  record AccessPointAlreadyExists(String accessPointId, String message) implements CloudError {}

  /** The file system has as many access points as its quota allows. */
  record AccessPointLimitExceeded(String fileSystemId, String message) implements CloudError {}

  /** The API throttled the call (every retry included). */
  record Throttled(String message) implements CloudError {}

  /** The credentials or role may not make the call. */
  record AccessDenied(String message) implements CloudError {}

  /** The request was malformed or invalid for the resource (BadRequest, ValidationException). */
  record InvalidRequest(String message) implements CloudError {}

  /** The resource is in a state that does not allow the call (e.g. a file system still creating or deleting). */
  record IncorrectState(String message) implements CloudError {}

  /** The service did not answer before the CSI call's deadline (less the margin to answer); names the action. */
  record NoAnswer(String message) implements CloudError {}

  /** The service or the network failed; the call may succeed later. */
  record Unavailable(String message) implements CloudError {}

  /** An answer the driver does not know how to read. */
  record Unexpected(String code, String message) implements CloudError {}
}
