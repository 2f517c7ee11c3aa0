package io.awscsi.realism.proxy;

import io.awscsi.realism.ApiRequest;
import io.awscsi.realism.AwsError;
import java.util.Optional;

/** What the proxy does with the calls of one AWS service, and how that service spells its errors. */
public interface ServiceHandler {

  /** True when this handler serves the request (by signing name, path or protocol). */
  boolean accepts(ProxyRequest request);

  /** The call the request makes: service, action and parameters. */
  ApiRequest describe(ProxyRequest request);

  /** Answers one call: a realistic answer, or moto's answer possibly rewritten. May throw {@link AwsErrorException}. */
  ProxyResponse handle(ProxyRequest request, ApiRequest call);

  /** The error in this service's wire format. */
  ProxyResponse render(AwsError error);

  /** The error this service reports when a request is throttled. */
  AwsError throttlingError(ApiRequest call);

  /** The AWS error code of an error answer, for call accounting. */
  Optional<String> errorCode(ProxyResponse response);

  /** Forgets all emulated state (after moto was reset). */
  void reset();

  /**
   * An admin request of this service ({@code /realism/<service>/...}) for processes that drive the proxy from outside
   * (the cluster suite), or empty when it is not one of this service's.
   */
  default Optional<ProxyResponse> admin(ProxyRequest request) {
    return Optional.empty();
  }
}
