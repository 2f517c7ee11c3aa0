package io.awscsi.aws.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.awscsi.aws.Environment;
import io.awscsi.aws.testing.RecordingHttpServer;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.ec2.Ec2Client;

/** Upstream's {@code --user-agent-extra}: what a configured client sends to AWS carries it in its User-Agent. */
class UserAgentExtraTest {

  private static final String ERROR_XML = "<Response><Errors><Error><Code>Probe</Code></Error></Errors></Response>";

  private static String userAgentSent(AwsClientConfig.Builder builder, RecordingHttpServer server) {
    AwsClientConfig config = builder.endpointOverride(server.endpoint()).build();
    try (Ec2Client ec2 = config.configure(Ec2Client.builder(), AwsService.EC2).build()) {
      // The recording server answers with an error: only what was sent matters here.
      catchThrowable(ec2::describeAvailabilityZones);
    }
    return server.requests().getFirst().header("User-Agent");
  }

  @Test
  void theExtraIsAppendedToTheDriversUserAgent() {
    try (RecordingHttpServer server = RecordingHttpServer.start(400, "text/xml", ERROR_XML)) {
      String agent = userAgentSent(AwsClientConfig.builder(Environment.of(Map.of("AWS_REGION", "us-east-1")))
          .userAgentExtra("helm-chart-x"), server);

      assertThat(agent).contains(AwsClientConfig.DEFAULT_USER_AGENT_SUFFIX + " helm-chart-x");
    }
  }

  @Test
  void withoutTheExtraTheUserAgentIsTheDriversAlone() {
    try (RecordingHttpServer server = RecordingHttpServer.start(400, "text/xml", ERROR_XML)) {
      String agent = userAgentSent(AwsClientConfig.builder(Environment.of(Map.of("AWS_REGION", "us-east-1")))
          .userAgentExtra("  "), server);

      assertThat(agent).contains(AwsClientConfig.DEFAULT_USER_AGENT_SUFFIX).doesNotContain("helm");
    }
  }
}
