package io.awscsi.aws.sdk;

/** The AWS services the drivers call, with the SDK's service-specific endpoint variable of each. */
public enum AwsService {
  EC2("EC2", "AWS_ENDPOINT_URL_EC2"),
  EFS("EFS", "AWS_ENDPOINT_URL_EFS"),
  STS("STS", "AWS_ENDPOINT_URL_STS");

  private final String displayName;
  private final String endpointVariable;

  AwsService(String displayName, String endpointVariable) {
    this.displayName = displayName;
    this.endpointVariable = endpointVariable;
  }

  /** The name used in log lines and messages. */
  public String displayName() {
    return displayName;
  }

  /**
   * The variable the SDK (2.41.24, checked in {@code AwsEndpointEnvironmentTest}) reads for this service's endpoint; it
   * takes precedence over {@link AwsEndpoints#GLOBAL_ENDPOINT_VARIABLE}.
   */
  public String endpointVariable() {
    return endpointVariable;
  }
}
