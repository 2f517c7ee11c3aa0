package io.awscsi.core.provider;

import java.util.Optional;

/**
 * The shapes of the ids a driver hands out, checked once where a request enters (driver-core's services), so that a
 * malformed id is answered at once with the spec's code and never reaches a path, a device name, a command or a
 * cloud filter. Each method says why {@code id} cannot name such an object of this driver, or nothing when it may.
 * The default accepts every id (a driver without shapes of its own).
 */
public interface IdSyntax {

  IdSyntax ANY = new IdSyntax() {};

  /** Why {@code id} cannot be a volume id of this driver. */
  default Optional<String> volumeIdProblem(String id) {
    return Optional.empty();
  }

  /** Why {@code id} cannot be a snapshot id of this driver. */
  default Optional<String> snapshotIdProblem(String id) {
    return Optional.empty();
  }

  /** Why {@code id} cannot be a group snapshot id of this driver. */
  default Optional<String> groupSnapshotIdProblem(String id) {
    return Optional.empty();
  }

  /** Why {@code id} cannot be a node id of this driver (what NodeGetInfo reports). */
  default Optional<String> nodeIdProblem(String id) {
    return Optional.empty();
  }
}
