package io.awscsi.aws.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.aws.Environment;
import io.awscsi.aws.sdk.AwsEndpoints.Source;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AwsEndpointsTest {

  private static final String EXPLICIT = "http://127.0.0.1:1";
  private static final String EXPLICIT_EC2 = "http://127.0.0.1:2";
  private static final String UPSTREAM_EC2 = "http://127.0.0.1:3";
  private static final String SERVICE = "http://127.0.0.1:4";
  private static final String GLOBAL = "http://127.0.0.1:5";

  /**
   * Each row sets some of: explicit override for all, explicit EC2 override, AWS_EC2_ENDPOINT, the service variable,
   * AWS_ENDPOINT_URL; the highest one wins.
   */
  @ParameterizedTest(name = "{0} {1}{2}{3}{4}{5} -> {6}")
  @CsvSource({
    "EC2, 1, 1, 1, 1, 1, EXPLICIT, " + EXPLICIT_EC2,
    "EC2, 1, 0, 1, 1, 1, EXPLICIT, " + EXPLICIT,
    "EC2, 0, 0, 1, 1, 1, UPSTREAM_EC2_VARIABLE, " + UPSTREAM_EC2,
    "EC2, 0, 0, 0, 1, 1, SERVICE_VARIABLE, " + SERVICE,
    "EC2, 0, 0, 0, 0, 1, GLOBAL_VARIABLE, " + GLOBAL,
    "EFS, 0, 0, 1, 0, 1, GLOBAL_VARIABLE, " + GLOBAL,
    "EFS, 0, 0, 1, 1, 1, SERVICE_VARIABLE, " + SERVICE,
    "STS, 0, 1, 0, 1, 0, SERVICE_VARIABLE, " + SERVICE,
  })
  void precedence(
      AwsService service,
      int overrideAll,
      int overrideEc2,
      int upstreamEc2,
      int serviceVariable,
      int globalVariable,
      Source source,
      String expected) {
    Map<String, String> vars = new HashMap<>();
    if (upstreamEc2 == 1) {
      vars.put("AWS_EC2_ENDPOINT", UPSTREAM_EC2);
    }
    if (serviceVariable == 1) {
      vars.put(service.endpointVariable(), SERVICE);
    }
    if (globalVariable == 1) {
      vars.put("AWS_ENDPOINT_URL", GLOBAL);
    }
    AwsEndpoints endpoints = AwsEndpoints.fromEnvironment(Environment.of(vars));
    if (overrideAll == 1) {
      endpoints = endpoints.withOverride(URI.create(EXPLICIT));
    }
    if (overrideEc2 == 1) {
      endpoints = endpoints.withOverride(AwsService.EC2, URI.create(EXPLICIT_EC2));
    }

    AwsEndpoints.Endpoint endpoint = endpoints.resolve(service).orElseThrow();
    assertThat(endpoint.uri()).isEqualTo(URI.create(expected));
    assertThat(endpoint.source()).isEqualTo(source);
    assertThat(endpoint.appliedBySdk())
        .isEqualTo(source == Source.SERVICE_VARIABLE || source == Source.GLOBAL_VARIABLE);
  }

  @Test
  void nothingSetMeansTheAwsEndpoint() {
    assertThat(AwsEndpoints.fromEnvironment(Environment.empty()).resolve(AwsService.EC2)).isEmpty();
  }

  @Test
  void aBadVariableIsNamedInTheError() {
    AwsEndpoints endpoints =
        AwsEndpoints.fromEnvironment(Environment.of(Map.of("AWS_ENDPOINT_URL_EFS", "127.0.0.1:5000")));

    assertThatThrownBy(() -> endpoints.resolve(AwsService.EFS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("AWS_ENDPOINT_URL_EFS");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "http://127.0.0.1:5000, true",
    "http://127.10.0.3:5000, true",
    "http://localhost:5000, true",
    "http://LOCALHOST, true",
    "'http://[::1]:5000', true",
    "https://ec2.us-east-1.amazonaws.com, false",
    "http://10.0.0.1:5000, false",
    "http://169.254.169.254, false",
    "http://localhost.example.com, false",
  })
  void loopbackIsJudgedWithoutDns(String uri, boolean loopback) {
    AwsEndpoints.Endpoint endpoint = new AwsEndpoints.Endpoint(URI.create(uri), Source.EXPLICIT, "test");
    assertThat(endpoint.isLoopback()).isEqualTo(loopback);
  }
}
