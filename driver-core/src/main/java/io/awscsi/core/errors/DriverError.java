package io.awscsi.core.errors;

/**
 * Everything that can go wrong in a CSI call, as the spec names it. Providers raise these (wrapped in
 * {@link DriverException}); {@link GrpcErrors} turns each into exactly one gRPC status, in one place.
 * Every message is written for an operator reading one log line: what failed, on which id, and what to do.
 */
public sealed interface DriverError {

  String message();

  /** A request field is missing or malformed; {@code field} names it as the CSI spec does (e.g. volume_id). */
  record InvalidArgument(String field, String message) implements DriverError {}

  /** The volume, snapshot, node or source does not exist. */
  record NotFound(String message) implements DriverError {}

  /** Same name, incompatible request (CreateVolume, CreateSnapshot, NodeStage/Publish with other arguments). */
  record AlreadyExists(String message) implements DriverError {}

  /** The system is not in a state the call needs (attached elsewhere, still attached, not staged). */
  record FailedPrecondition(String message) implements DriverError {}

  /** A limit is reached: attachments per node, access points per file system, GID range, topology. */
  record ResourceExhausted(String message) implements DriverError {}

  /** The requested capacity cannot be provided. */
  record OutOfRange(String message) implements DriverError {}

  /** Another operation on the same volume is in progress, or a paging token is invalid: retry later. */
  record Aborted(String message) implements DriverError {}

  /** A dependency (cloud API, device, metadata) is not available now; the caller should retry. */
  record Unavailable(String message) implements DriverError {}

  /** The call's deadline passed before the operation finished; the operation may still complete. */
  record DeadlineExceeded(String message) implements DriverError {}

  /** The cloud refused the driver's credentials or role. */
  record PermissionDenied(String message) implements DriverError {}

  /** The request is valid but this driver does not offer it (only for RPCs without an advertised capability). */
  record Unimplemented(String message) implements DriverError {}

  /** A bug or an unexpected answer; the message still says what was being done. */
  record Internal(String message) implements DriverError {}
}
