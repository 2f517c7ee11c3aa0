package io.awscsi.aws.call;

/** What a service supplies to {@link AwsCallRunner}: how its SDK failures and error codes become {@link AwsCallError}. */
public interface AwsErrorMapping {

  /**
   * Classifies what a request of {@code api} about {@code resourceId} (null when the call names no single resource)
   * threw.
   */
  AwsCallError classify(String api, String resourceId, RuntimeException failure);

  /** The error-code label of the error counter for {@code error}, classified from {@code failure}. */
  String metricCode(AwsCallError error, RuntimeException failure);
}
