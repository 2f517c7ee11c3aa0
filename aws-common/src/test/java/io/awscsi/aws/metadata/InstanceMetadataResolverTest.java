package io.awscsi.aws.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.aws.Environment;
import io.awscsi.aws.testing.KubernetesMockApi;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class InstanceMetadataResolverTest {

  private static final InstanceMetadata FROM_IMDS =
      new InstanceMetadata("i-0aaaaaaaaaaaaaaa1", "m7i.large", "us-west-2", "us-west-2b", "usw2-az2", 2, 1, null);
  private static final InstanceMetadata FROM_NODE =
      new InstanceMetadata("i-0bbbbbbbbbbbbbbb2", "m7i.large", "us-west-2", "us-west-2b", null, 1, 0, null);

  private final List<String> asked = new ArrayList<>();

  @Test
  void theFirstSourceThatAnswersWins() throws Exception {
    InstanceMetadataResolver resolver =
        new InstanceMetadataResolver(List.of(answering("imds", FROM_IMDS), answering("kubernetes", FROM_NODE)));

    assertThat(resolver.resolve()).isEqualTo(FROM_IMDS);
    assertThat(asked).containsExactly("imds");
  }

  @Test
  void refreshAsksTheSourceThatAnsweredAndKeepsTheLastCountWhenItFails() throws Exception {
    int[] enis = {2};
    boolean[] down = {false};
    MetadataSource imds = new MetadataSource() {
      @Override
      public String name() {
        return "imds";
      }

      @Override
      public InstanceMetadata fetch() {
        return FROM_IMDS;
      }

      @Override
      public InstanceMetadata refresh(InstanceMetadata known) throws MetadataUnavailableException {
        if (down[0]) {
          throw new MetadataUnavailableException("IMDS timed out");
        }
        return known.withEniCount(enis[0]);
      }
    };
    InstanceMetadataResolver resolver =
        new InstanceMetadataResolver(List.of(failing("kubernetes", "not this one"), imds));
    InstanceMetadata known = resolver.resolve();

    enis[0] = 5;
    assertThat(resolver.refresh(known).eniCount()).isEqualTo(5);
    down[0] = true;
    assertThat(resolver.refresh(known)).as("the last count read, not the one at start").isEqualTo(known.withEniCount(5));
    assertThat(asked).as("the failed source is not asked again").containsExactly("kubernetes");
  }

  @Test
  void refreshBeforeAnyAnswerReturnsWhatItWasGiven() {
    InstanceMetadataResolver resolver = new InstanceMetadataResolver(List.of(answering("imds", FROM_IMDS)));
    assertThat(resolver.refresh(FROM_NODE)).isEqualTo(FROM_NODE);
  }

  @Test
  void aFailingSourceFallsBackToTheNext() throws Exception {
    InstanceMetadataResolver resolver =
        new InstanceMetadataResolver(
            List.of(failing("imds", "no answer from IMDS"), answering("kubernetes", FROM_NODE)));

    assertThat(resolver.resolve()).isEqualTo(FROM_NODE);
    assertThat(asked).containsExactly("imds", "kubernetes");
  }

  @Test
  void anUnexpectedExceptionAlsoFallsBack() throws Exception {
    MetadataSource broken =
        source(
            "imds",
            () -> {
              throw new IllegalStateException("bug");
            });
    assertThat(new InstanceMetadataResolver(List.of(broken, answering("kubernetes", FROM_NODE))).resolve())
        .isEqualTo(FROM_NODE);
  }

  @Test
  void aMalformedAnswerStopsTheSearchNamingTheSourceAndTheField() {
    InstanceMetadata forged =
        new InstanceMetadata("i-../../etc/passwd", "m7i.large", "us-west-2", "us-west-2b", null, 1, 0, null);
    InstanceMetadataResolver resolver =
        new InstanceMetadataResolver(List.of(answering("imds", forged), answering("kubernetes", FROM_NODE)));

    assertThatThrownBy(resolver::resolve)
        .isInstanceOf(MetadataUnavailableException.class)
        .hasMessageContaining("source imds gave instanceId \"i-../../etc/passwd\"")
        .hasCauseInstanceOf(InvalidMetadataException.class);
    assertThat(asked).as("a forged answer is not a reason to ask another source").containsExactly("imds");
  }

  @Test
  void whenAllFailTheErrorNamesWhatEachSourceSaid() {
    InstanceMetadataResolver resolver =
        new InstanceMetadataResolver(
            List.of(failing("imds", "IMDS timed out"), failing("kubernetes", "CSI_NODE_NAME is not set")));

    assertThatThrownBy(resolver::resolve)
        .isInstanceOf(MetadataUnavailableException.class)
        .hasMessageContaining("imds: IMDS timed out")
        .hasMessageContaining("kubernetes: CSI_NODE_NAME is not set");
  }

  @Test
  void unreachableImdsFallsBackToTheKubernetesNode() throws Exception {
    try (KubernetesMockApi api = KubernetesMockApi.start();
        ImdsMetadataSource imds =
            ImdsMetadataSource.builder()
                .endpoint(closedLoopbackPort())
                .connectTimeout(Duration.ofMillis(300))
                .retries(0)
                .build()) {
      api.client()
          .nodes()
          .resource(
              new NodeBuilder()
                  .withNewMetadata()
                  .withName("node-1")
                  .withLabels(
                      Map.of(
                          "node.kubernetes.io/instance-type", "m7i.large",
                          "topology.kubernetes.io/region", "us-west-2",
                          "topology.kubernetes.io/zone", "us-west-2b"))
                  .endMetadata()
                  .withNewSpec()
                  .withProviderID("aws:///us-west-2b/i-0bbbbbbbbbbbbbbb2")
                  .endSpec()
                  .build())
          .create();
      Environment env = Environment.of(Map.of("CSI_NODE_NAME", "node-1"));
      InstanceMetadataResolver resolver =
          new InstanceMetadataResolver(List.of(imds, new KubernetesMetadataSource(api::client, env)));

      assertThat(resolver.resolve()).isEqualTo(FROM_NODE);
    }
  }

  @Test
  void disabledImdsIsSkippedWithoutANetworkCall() {
    Environment env = Environment.of(Map.of("AWS_EC2_METADATA_DISABLED", "TRUE"));
    InstanceMetadataResolver resolver =
        InstanceMetadataResolver.standard(
            "imds",
            env,
            () -> {
              throw new AssertionError("the Kubernetes client must not be built");
            });

    assertThatThrownBy(resolver::resolve)
        .isInstanceOf(MetadataUnavailableException.class)
        .hasMessageContaining("imds: skipped because AWS_EC2_METADATA_DISABLED=true");
  }

  @ParameterizedTest(name = "''{0}'' -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "imds,kubernetes         | imds,kubernetes",
        "kubernetes              | kubernetes",
        "' kubernetes , imds '   | kubernetes,imds",
        "imds,,imds,kubernetes   | imds,kubernetes",
      })
  void parsesSourceNames(String csv, String expected) {
    assertThat(InstanceMetadataResolver.parseSourceNames(csv)).isEqualTo(List.of(expected.split(",")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " , ", "imds,metadata-labeler", "IMDS"})
  void rejectsEmptyOrUnknownSourceNames(String csv) {
    assertThatThrownBy(() -> InstanceMetadataResolver.parseSourceNames(csv))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("metadata-sources");
  }

  @Test
  void standardBuildsTheNamedSourcesInOrder() {
    try (InstanceMetadataResolver resolver =
        InstanceMetadataResolver.standard("kubernetes,imds", Environment.empty(), () -> null)) {
      assertThat(resolver.sourceNames()).containsExactly("kubernetes", "imds");
    }
  }

  /** What a fake source does when asked. */
  private interface Answer {
    InstanceMetadata get() throws MetadataUnavailableException;
  }

  private MetadataSource source(String name, Answer answer) {
    return new MetadataSource() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public InstanceMetadata fetch() throws MetadataUnavailableException {
        asked.add(name);
        return answer.get();
      }
    };
  }

  private MetadataSource answering(String name, InstanceMetadata metadata) {
    return source(name, () -> metadata);
  }

  private MetadataSource failing(String name, String reason) {
    return source(
        name,
        () -> {
          throw new MetadataUnavailableException(reason);
        });
  }

  private static URI closedLoopbackPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return URI.create("http://127.0.0.1:" + socket.getLocalPort());
    }
  }
}
