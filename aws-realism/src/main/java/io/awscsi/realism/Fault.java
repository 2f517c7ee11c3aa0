package io.awscsi.realism;

import java.util.Objects;
import java.util.function.Predicate;

/**
 * An injected failure: calls of {@code service}/{@code action} that match {@code when} are answered with {@code error}
 * instead of reaching the emulated service, at most {@code times} times (or forever when {@code times} is 0).
 */
public record Fault(String service, String action, Predicate<ApiRequest> when, AwsError error, int times) {

  public Fault {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(when, "when");
    Objects.requireNonNull(error, "error");
    if (times < 0) {
      throw new IllegalArgumentException("times must be 0 (unlimited) or positive, got " + times);
    }
  }

  /** Every call of an EC2 action fails with {@code error} until the fault is removed. */
  public static Fault ec2(String action, AwsError error) {
    return new Fault("ec2", action, request -> true, error, 0);
  }

  /** Every call of an EFS action fails with {@code error} until the fault is removed. */
  public static Fault efs(String action, AwsError error) {
    return new Fault("efs", action, request -> true, error, 0);
  }

  public Fault when(Predicate<ApiRequest> predicate) {
    return new Fault(service, action, predicate, error, times);
  }

  public Fault times(int count) {
    return new Fault(service, action, when, error, count);
  }

  public boolean matches(ApiRequest request) {
    return service.equals(request.service()) && action.equals(request.action()) && when.test(request);
  }
}
