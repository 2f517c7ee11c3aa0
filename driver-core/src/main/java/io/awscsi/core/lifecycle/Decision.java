package io.awscsi.core.lifecycle;

import io.awscsi.core.errors.DriverError;

/** What the lifecycle says about a call. */
public sealed interface Decision {

  /** Do the work; the volume is in {@code next} afterwards. */
  record Proceed(VolumeState next) implements Decision {}

  /** Already done exactly as asked: answer OK without touching anything. */
  record AlreadyDone() implements Decision {}

  /** Refuse with the spec's code. */
  record Reject(DriverError error) implements Decision {}
}
