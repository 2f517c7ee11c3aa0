package io.awscsi.aws.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.testing.RecordingHttpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks that SDK 2.41.24 itself honours {@code AWS_ENDPOINT_URL_EC2}, {@code AWS_ENDPOINT_URL_EFS} and {@code
 * AWS_ENDPOINT_URL} (so {@link AwsClientConfig} does not pass them again), and that a service-specific variable beats
 * the global one. The SDK reads the real process environment, hence a child JVM ({@link EndpointProbe}).
 */
@Tag("integration")
class AwsEndpointEnvironmentTest {

  private static final String ERROR_XML = "<Response><Errors><Error><Code>Probe</Code></Error></Errors></Response>";

  @Test
  void theSdkSendsEachServiceWhereTheEnvironmentSays(@TempDir Path home) throws Exception {
    try (RecordingHttpServer ec2 = RecordingHttpServer.start(400, "text/xml", ERROR_XML);
        RecordingHttpServer efs = RecordingHttpServer.start(400, "application/json", "{\"ErrorCode\":\"Probe\"}");
        RecordingHttpServer global = RecordingHttpServer.start(400, "text/xml", ERROR_XML)) {
      ProcessBuilder probe =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  EndpointProbe.class.getName())
              .redirectErrorStream(true);
      Map<String, String> env = probe.environment();
      // Nothing inherited: no AWS credentials, profiles or endpoints of the machine running the test.
      env.clear();
      env.put("HOME", home.toString());
      env.put("AWS_REGION", "us-east-1");
      env.put("AWS_ENDPOINT_URL_EC2", ec2.endpoint().toString());
      env.put("AWS_ENDPOINT_URL_EFS", efs.endpoint().toString());
      env.put("AWS_ENDPOINT_URL", global.endpoint().toString());
      Path output = home.resolve("probe.log");
      probe.redirectOutput(output.toFile());

      Process process = probe.start();
      boolean exited = process.waitFor(120, TimeUnit.SECONDS);
      if (!exited) {
        process.destroyForcibly().waitFor();
      }
      String log = Files.readString(output);
      assertThat(exited).as("probe finished: %s", log).isTrue();
      assertThat(process.exitValue()).as(log).isZero();

      assertThat(ec2.requests())
          .singleElement()
          .satisfies(r -> assertThat(r.body()).contains("DescribeAvailabilityZones"));
      assertThat(efs.requests()).singleElement().satisfies(r -> assertThat(r.target()).contains("/file-systems"));
      // AWS_ENDPOINT_URL serves only the service without its own variable.
      assertThat(global.requests()).singleElement().satisfies(r -> assertThat(r.body()).contains("GetCallerIdentity"));
      // Loopback endpoints and no credentials: the emulator keys, not the default chain.
      assertThat(ec2.requests().getFirst().header("Authorization")).contains("Credential=test/");
      assertThat(global.requests().getFirst().header("User-Agent")).contains("aws-csi-java");
    }
  }
}
