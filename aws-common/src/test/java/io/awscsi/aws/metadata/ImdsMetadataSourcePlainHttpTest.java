package io.awscsi.aws.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.aws.testing.FakeImdsServer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ImdsMetadataSource} over the plain-HTTP SDK client, against an in-process IMDSv2 (no mock binary needed). */
class ImdsMetadataSourcePlainHttpTest {

  private static FakeImdsServer imds;

  @BeforeAll
  static void startImds() {
    imds =
        FakeImdsServer.start(
            Map.of(
                ImdsMetadataSource.IDENTITY_DOCUMENT_PATH,
                """
                {"instanceId":"i-0fake0000000000001","instanceType":"m7i.large","region":"us-west-2",
                 "availabilityZone":"us-west-2b","accountId":"123456789012"}""",
                ImdsMetadataSource.ZONE_ID_PATH, "usw2-az2",
                ImdsMetadataSource.MACS_PATH, "0e:11:22:33:44:55/\n0e:11:22:33:44:66/",
                ImdsMetadataSource.BLOCK_DEVICE_MAPPING_PATH, "ami\nebs1\nroot"));
  }

  @AfterAll
  static void stopImds() {
    imds.close();
  }

  @Test
  void readsTheInstanceWithASessionToken() throws Exception {
    try (ImdsMetadataSource source = ImdsMetadataSource.builder().endpoint(imds.endpoint()).build()) {
      assertThat(source.fetch())
          .isEqualTo(
              new InstanceMetadata("i-0fake0000000000001", "m7i.large", "us-west-2", "us-west-2b", "usw2-az2", 2, 1,
                  null)); // outpost-arn: 404, so not on an Outpost
    }

    List<FakeImdsServer.Request> requests = imds.requests();
    assertThat(requests).isNotEmpty();
    assertThat(requests.getFirst().method()).isEqualTo("PUT");
    assertThat(requests.getFirst().path()).isEqualTo("/latest/api/token");
    assertThat(requests.getFirst().tokenTtl()).isNotEmpty();
    assertThat(requests)
        .filteredOn(r -> r.method().equals("GET"))
        .extracting(FakeImdsServer.Request::token)
        .isNotEmpty()
        .containsOnly(FakeImdsServer.TOKEN);
  }

  @Test
  void refreshCountsTheEnisAttachedSinceStartButKeepsTheBootMappings() throws Exception {
    try (FakeImdsServer changing = FakeImdsServer.start(Map.of(
            ImdsMetadataSource.IDENTITY_DOCUMENT_PATH,
            """
            {"instanceId":"i-0fake0000000000002","instanceType":"m7i.large","region":"us-west-2",
             "availabilityZone":"us-west-2b"}""",
            ImdsMetadataSource.MACS_PATH, "0e:11:22:33:44:55/",
            ImdsMetadataSource.BLOCK_DEVICE_MAPPING_PATH, "ami\nebs1\nroot"));
        ImdsMetadataSource source = ImdsMetadataSource.builder().endpoint(changing.endpoint()).build()) {
      InstanceMetadata atStart = source.fetch();
      assertThat(atStart.eniCount()).isEqualTo(1);

      changing.put(ImdsMetadataSource.MACS_PATH, "0e:11:22:33:44:55/\n0e:11:22:33:44:66/\n0e:11:22:33:44:77/");
      changing.put(ImdsMetadataSource.BLOCK_DEVICE_MAPPING_PATH, "ami\nebs1\nebs2\nroot");

      assertThat(source.refresh(atStart))
          .as("ENIs read again; block device mappings are boot-time state in IMDS, so not re-read (as upstream)")
          .isEqualTo(atStart.withEniCount(3));
    }
  }

  @Test
  void anHttpsEndpointIsRefusedNamingIt() {
    try (ImdsMetadataSource source =
        ImdsMetadataSource.builder().endpoint(URI.create("https://127.0.0.1:1")).retries(0).build()) {
      assertThatThrownBy(source::fetch)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("https://127.0.0.1:1/latest/api/token");
    }
  }

  /** The point of the plain-HTTP client: a node that reads IMDS does not load the JDK's TLS stack for it. */
  @Test
  void aFetchInAFreshJvmLoadsNoTlsClasses(@TempDir Path dir) throws Exception {
    Path classLog = dir.resolve("class-load.log");
    Path output = dir.resolve("probe.out");
    ProcessBuilder probe =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-Xlog:class+load=info:file=" + classLog,
                "-cp",
                System.getProperty("java.class.path"),
                ImdsFetchProbe.class.getName(),
                imds.endpoint().toString())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    // Nothing inherited: no AWS profile or IMDS settings of the machine running the test.
    probe.environment().clear();
    probe.environment().put("HOME", dir.toString());

    Process process = probe.start();
    boolean exited = process.waitFor(60, TimeUnit.SECONDS);
    if (!exited) {
      process.destroyForcibly().waitFor();
    }
    String out = Files.readString(output);
    assertThat(exited).as("probe finished: %s", out).isTrue();
    assertThat(process.exitValue()).as(out).isZero();
    assertThat(out).contains("instance i-0fake0000000000001");

    List<String> loaded = Files.readAllLines(classLog);
    // The log is complete: the IMDS path itself is in it.
    assertThat(loaded)
        .anyMatch(line -> line.contains(" io.awscsi.aws.sdk.PlainHttpSdkClient "))
        .anyMatch(line -> line.contains(" software.amazon.awssdk.imds.internal.DefaultEc2MetadataClient "));
    assertThat(loaded)
        .noneMatch(line -> line.contains(" sun.security.ssl."))
        .noneMatch(line -> line.contains(" javax.net.ssl."));
  }
}
