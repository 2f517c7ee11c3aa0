package io.awscsi.core.host;

/** A mount option that is not on the allowlist of its file-system family; the message says which and why. */
public final class InvalidMountOptionException extends IllegalArgumentException {

  private final String option;

  public InvalidMountOptionException(String option, String message) {
    super(message);
    this.option = option;
  }

  /** The offending option as the caller wrote it. */
  public String option() {
    return option;
  }
}
