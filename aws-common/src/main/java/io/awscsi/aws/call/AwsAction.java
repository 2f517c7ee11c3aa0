package io.awscsi.aws.call;

/**
 * An AWS API action the driver calls. AWS throttles each action with its own token bucket, larger for the
 * non-mutating Describe and List actions than for the mutating ones, so rate limits and retries are kept per action.
 */
public interface AwsAction {

  /** The action's name as AWS and the upstream metrics spell it (e.g. {@code AttachVolume}). */
  String apiName();

  /** Whether the action changes anything; by default every action but Describe* and List*. */
  default boolean mutating() {
    return !(apiName().startsWith("Describe") || apiName().startsWith("List"));
  }

  /** The action called {@code apiName}, for a service that names its actions by string. */
  static AwsAction named(String apiName) {
    return new Named(apiName);
  }

  /** An action known by its name only. */
  record Named(String apiName) implements AwsAction {}
}
