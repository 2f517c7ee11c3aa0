package io.awscsi.realism;

import java.util.Map;
import java.util.Optional;

/**
 * One API call as the proxy understood it, for fault predicates and call accounting.
 *
 * @param service {@code ec2}, {@code efs}, or the signing name of another service
 * @param action the API action ({@code AttachVolume}, {@code CreateAccessPoint}, ...)
 * @param method HTTP method
 * @param path request path
 * @param params EC2 form parameters ({@code VolumeId}, {@code Filter.1.Name}, ...) or the REST query parameters
 * @param body the raw body (JSON for EFS, form-encoded for EC2)
 */
public record ApiRequest(String service, String action, String method, String path, Map<String, String> params,
                         String body) {

  public ApiRequest {
    params = Map.copyOf(params);
  }

  public Optional<String> param(String name) {
    return Optional.ofNullable(params.get(name));
  }

  /** True when the parameter is present with exactly this value. */
  public boolean hasParam(String name, String value) {
    return value.equals(params.get(name));
  }
}
