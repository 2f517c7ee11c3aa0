package io.awscsi.aws.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.aws.Environment;
import io.awscsi.aws.testing.RecordingHttpServer;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;
import software.amazon.awssdk.services.sts.StsClient;

class AwsClientConfigTest {

  private static final String CALLER_IDENTITY =
      """
      <GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
        <GetCallerIdentityResult>
          <Arn>arn:aws:iam::123456789012:user/moto</Arn><UserId>AIDAEXAMPLE</UserId><Account>123456789012</Account>
        </GetCallerIdentityResult>
        <ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata>
      </GetCallerIdentityResponse>
      """;

  private static final String EC2_ERROR =
      "<Response><Errors><Error><Code>Probe</Code></Error></Errors></Response>";

  @ParameterizedTest(name = "explicit={0} AWS_REGION={1} AWS_DEFAULT_REGION={2} -> {3}")
  @CsvSource({
    "eu-west-1, us-east-1, us-east-2, eu-west-1",
    "'',        us-east-1, us-east-2, us-east-1",
    "'',        '',        us-east-2, us-east-2",
  })
  void regionFromExplicitThenEnvironmentWithoutAskingMetadata(
      String explicit, String awsRegion, String defaultRegion, String expected) {
    Map<String, String> vars = new HashMap<>();
    vars.put("AWS_REGION", awsRegion);
    vars.put("AWS_DEFAULT_REGION", defaultRegion);
    Supplier<String> metadata =
        () -> {
          throw new AssertionError("metadata must not be asked when the region is known");
        };

    AwsClientConfig config =
        AwsClientConfig.builder(Environment.of(vars)).region(explicit).regionFallback(metadata).build();

    assertThat(config.region().id()).isEqualTo(expected);
  }

  @Test
  void regionFromMetadataWhenTheEnvironmentHasNone() {
    AwsClientConfig config = AwsClientConfig.builder(Environment.empty()).regionFallback(() -> "ap-south-1").build();

    assertThat(config.region().id()).isEqualTo("ap-south-1");
  }

  @Test
  void noRegionAnywhereSaysWhatToSet() {
    assertThatThrownBy(() -> AwsClientConfig.builder(Environment.empty()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("set AWS_REGION");
  }

  @Test
  void failingMetadataIsReportedWithItsReason() {
    assertThatThrownBy(
            () ->
                AwsClientConfig.builder(Environment.empty())
                    .regionFallback(
                        () -> {
                          throw new IllegalStateException("IMDS timed out");
                        })
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("IMDS timed out")
        .hasMessageContaining("AWS_REGION");
  }

  @ParameterizedTest(name = "endpoint={0} {1}={2} -> emulator keys {3}")
  @CsvSource({
    "http://127.0.0.1:5000, '',                                  '',               true",
    "http://localhost:5000, '',                                  '',               true",
    "http://127.0.0.1:5000, AWS_ACCESS_KEY_ID,                   AKIAEXAMPLE,      false",
    "http://127.0.0.1:5000, AWS_PROFILE,                         dev,              false",
    "http://127.0.0.1:5000, AWS_WEB_IDENTITY_TOKEN_FILE,         /var/run/token,   false",
    "http://127.0.0.1:5000, AWS_CONTAINER_CREDENTIALS_FULL_URI,  http://x/creds,   false",
    "https://ec2.example.com, '',                                '',               false",
    "'',                    '',                                  '',               false",
  })
  void emulatorKeysOnlyForALoopbackEndpointWithoutConfiguredCredentials(
      String endpoint, String variable, String value, boolean emulator) {
    Map<String, String> vars = new HashMap<>(Map.of("AWS_REGION", "us-east-1"));
    if (!variable.isEmpty()) {
      vars.put(variable, value);
    }
    AwsClientConfig.Builder builder = AwsClientConfig.builder(Environment.of(vars));
    if (!endpoint.isEmpty()) {
      builder.endpointOverride(URI.create(endpoint));
    }
    AwsClientConfig config = builder.build();

    assertThat(config.usesEmulatorCredentials(AwsService.EC2)).isEqualTo(emulator);
    assertThat(config.credentialsFor(AwsService.EC2) instanceof StaticCredentialsProvider).isEqualTo(emulator);
  }

  @Test
  void aConfiguredClientCallsTheOverrideWithUserAgentRegionAndEmulatorKeys() {
    try (RecordingHttpServer sts = RecordingHttpServer.start(200, "text/xml", CALLER_IDENTITY)) {
      AwsClientConfig config =
          AwsClientConfig.builder(Environment.empty())
              .region("us-west-2")
              .endpointOverride(sts.endpoint())
              .userAgentSuffix("aws-csi-java/9.9 ebs.csi.aws.com")
              .build();

      try (StsClient client =
          config
              .configure(StsClient.builder(), AwsService.STS, o -> o.putHeader("X-Probe", "kept"))
              .build()) {
        assertThat(client.getCallerIdentity().account()).isEqualTo("123456789012");
      }

      RecordingHttpServer.Request request = sts.requests().getFirst();
      assertThat(request.header("User-Agent")).contains("aws-csi-java/9.9 ebs.csi.aws.com");
      assertThat(request.header("X-Probe")).isEqualTo("kept");
      assertThat(request.header("Authorization")).contains("Credential=test/").contains("/us-west-2/sts/");
    }
  }

  @Test
  void upstreamsEc2EndpointVariableIsAppliedHereBecauseTheSdkDoesNotKnowIt() {
    try (RecordingHttpServer ec2 =
        RecordingHttpServer.start(400, "text/xml", EC2_ERROR)) {
      Environment env =
          Environment.of(Map.of("AWS_REGION", "us-east-1", "AWS_EC2_ENDPOINT", ec2.endpoint().toString()));
      AwsClientConfig config = AwsClientConfig.builder(env).build();

      try (Ec2Client client = config.configure(Ec2Client.builder(), AwsService.EC2).build()) {
        assertThatThrownBy(client::describeAvailabilityZones).isInstanceOf(Ec2Exception.class);
      }

      assertThat(ec2.requests()).hasSize(1);
      assertThat(ec2.requests().getFirst().body()).contains("Action=DescribeAvailabilityZones");
    }
  }
}
