package io.awscsi.ebs.cloud;

/**
 * Carries a {@link CloudError} out of the cloud package. It also remembers the deadline of the call that failed, so the
 * per-action retry can bound its backoff by it without any per-call state of its own.
 */
public final class CloudException extends RuntimeException {

  private final transient CloudError error;
  private final transient CallDeadline deadline;

  public CloudException(CloudError error) {
    this(error, null, null);
  }

  public CloudException(CloudError error, CallDeadline deadline, Throwable cause) {
    super(error.message(), cause, false, false);
    this.error = error;
    this.deadline = deadline;
  }

  public CloudError error() {
    return error;
  }

  /** The deadline of the failed call, or null when it was not raised by a call to EC2. */
  CallDeadline deadline() {
    return deadline;
  }
}
