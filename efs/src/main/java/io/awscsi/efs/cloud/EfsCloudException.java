package io.awscsi.efs.cloud;

/** A failed EFS call: which operation on which resource, and the classified {@link CloudError}. */
public final class EfsCloudException extends RuntimeException {

  private final transient CloudError error;
  private final String operation;

  public EfsCloudException(String operation, CloudError error, Throwable cause) {
    super(operation + ": " + error.message(), cause);
    this.operation = operation;
    this.error = error;
  }

  public CloudError error() {
    return error;
  }

  /** The EFS API action, e.g. CreateAccessPoint. */
  public String operation() {
    return operation;
  }
}
