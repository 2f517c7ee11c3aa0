package io.awscsi.aws.call;

/**
 * Carries an {@link AwsCallError} out of a service's cloud package. A failure raised by {@link AwsCallRunner} also
 * names the API action and remembers the deadline of the call that failed, so the per-action retry can bound its
 * backoff by it without any per-call state of its own.
 */
public final class AwsCallException extends RuntimeException {

  private final transient AwsCallError error;
  private final String operation;
  private final transient CallDeadline deadline;

  /** A failure found outside a request (a wait, a missing resource in an answer). */
  public AwsCallException(AwsCallError error) {
    this(null, error, null, null);
  }

  /** A failure of {@code operation} (the API action, e.g. CreateAccessPoint) found without a deadline of its own. */
  public AwsCallException(String operation, AwsCallError error, Throwable cause) {
    this(operation, error, null, cause);
  }

  public AwsCallException(String operation, AwsCallError error, CallDeadline deadline, Throwable cause) {
    super(operation == null ? error.message() : operation + ": " + error.message(), cause, false, false);
    this.error = error;
    this.operation = operation;
    this.deadline = deadline;
  }

  public AwsCallError error() {
    return error;
  }

  /** The API action that failed, e.g. CreateAccessPoint, or null when the failure was not raised by a request. */
  public String operation() {
    return operation;
  }

  /** The deadline of the failed call, or null when it was not raised by {@link AwsCallRunner}. */
  CallDeadline deadline() {
    return deadline;
  }
}
