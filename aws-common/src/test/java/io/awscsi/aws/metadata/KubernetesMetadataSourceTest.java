package io.awscsi.aws.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.aws.Environment;
import io.awscsi.aws.testing.KubernetesMockApi;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class KubernetesMetadataSourceTest {

  private static final String NODE = "ip-10-0-1-23.us-west-2.compute.internal";
  private static final Environment ENV = Environment.of(Map.of("CSI_NODE_NAME", NODE));

  private KubernetesMockApi api;

  @BeforeEach
  void startApi() {
    api = KubernetesMockApi.start();
  }

  @AfterEach
  void stopApi() {
    api.close();
  }

  @Test
  void readsTheInstanceFromProviderIdAndLabels() throws Exception {
    createNode("aws:///us-west-2b/i-0abc123def4567890", labels("m7i.large", "us-west-2", "us-west-2b"));

    InstanceMetadata metadata = new KubernetesMetadataSource(api::client, ENV).fetch();

    assertThat(metadata)
        .isEqualTo(
            new InstanceMetadata(
                "i-0abc123def4567890", "m7i.large", "us-west-2", "us-west-2b", null, 1, 0, null));
  }

  @Test
  void readsTheZoneIdLabelWhenPresentAndStripsTheSageMakerPrefix() throws Exception {
    Map<String, String> labels = labels("ml.g5.xlarge", "us-west-2", "us-west-2b");
    labels.put("topology.k8s.aws/zone-id", "usw2-az2");
    createNode("aws:///usw2-az2/hyperpod-abc123xyz-i-0abc123def4567890", labels);

    InstanceMetadata metadata = new KubernetesMetadataSource(api::client, ENV).fetch();

    assertThat(metadata.instanceId()).isEqualTo("hyperpod-abc123xyz-i-0abc123def4567890");
    assertThat(metadata.instanceType()).isEqualTo("g5.xlarge");
    assertThat(metadata.zoneId()).contains("usw2-az2");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "node.kubernetes.io/instance-type",
        "topology.kubernetes.io/region",
        "topology.kubernetes.io/zone"
      })
  void aMissingLabelIsNamed(String missing) {
    Map<String, String> labels = labels("m7i.large", "us-west-2", "us-west-2b");
    labels.remove(missing);
    createNode("aws:///us-west-2b/i-0abc123def4567890", labels);

    assertThatThrownBy(() -> new KubernetesMetadataSource(api::client, ENV).fetch())
        .isInstanceOf(MetadataUnavailableException.class)
        .hasMessageContaining(NODE)
        .hasMessageContaining(missing);
  }

  @Test
  void aProviderIdWithoutInstanceIdIsAnError() {
    createNode("kind://docker/kind/kind-worker", labels("m7i.large", "us-west-2", "us-west-2b"));

    assertThatThrownBy(() -> new KubernetesMetadataSource(api::client, ENV).fetch())
        .isInstanceOf(MetadataUnavailableException.class)
        .hasMessageContaining("kind://docker/kind/kind-worker");
  }

  @Test
  void aMissingNodeIsNamed() {
    assertThatThrownBy(() -> new KubernetesMetadataSource(api::client, ENV).fetch())
        .isInstanceOf(MetadataUnavailableException.class)
        .hasMessageContaining(NODE + " (from CSI_NODE_NAME) does not exist");
  }

  @Test
  void withoutNodeNameTheSourceSaysWhichVariableToSet() {
    assertThatThrownBy(() -> new KubernetesMetadataSource(api::client, Environment.empty()).fetch())
        .isInstanceOf(MetadataUnavailableException.class)
        .hasMessageContaining("CSI_NODE_NAME");
  }

  @Test
  void forbiddenPointsAtRbac() {
    api.server()
        .expect()
        .get()
        .withPath("/api/v1/nodes/" + NODE)
        .andReturn(403, new StatusBuilder().withCode(403).withReason("Forbidden").withMessage("forbidden").build())
        .always();

    assertThatThrownBy(() -> new KubernetesMetadataSource(api::client, ENV).fetch())
        .isInstanceOf(MetadataUnavailableException.class)
        .hasMessageContaining("RBAC get on nodes");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "aws:///us-east-1a/i-0123456789abcdef0,           i-0123456789abcdef0",
    "aws:///us-east-1a/i-abc,                          i-abc",
    "aws:///usw2-az2/hyperpod-cluster1-i-0abc,         hyperpod-cluster1-i-0abc",
    "aws:///snow/s.i-0abc1234,                         s.i-0abc1234",
    "i-0abc,                                           i-0abc",
  })
  void instanceIdFromProviderId(String providerId, String instanceId) {
    assertThat(KubernetesMetadataSource.instanceIdFromProviderId(providerId)).contains(instanceId);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "aws:///us-east-1a/", "gce://project/zone/vm-1", "aws:///us-east-1a/I-ABC"})
  void noInstanceIdInProviderId(String providerId) {
    assertThat(KubernetesMetadataSource.instanceIdFromProviderId(providerId)).isEmpty();
  }

  private static Map<String, String> labels(String type, String region, String zone) {
    Map<String, String> labels = new HashMap<>();
    labels.put("node.kubernetes.io/instance-type", type);
    labels.put("topology.kubernetes.io/region", region);
    labels.put("topology.kubernetes.io/zone", zone);
    return labels;
  }

  private void createNode(String providerId, Map<String, String> labels) {
    api.client()
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(NODE)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withProviderID(providerId)
                .endSpec()
                .build())
        .create();
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"../nodes/other", "node\nforged", "Node-A", "a..b", ""})
  void aNodeNameThatIsNoKubernetesNameIsNeverAskedFor(String name) {
    KubernetesMetadataSource source = new KubernetesMetadataSource(() -> {
      throw new AssertionError("the API must not be asked for " + name);
    }, Environment.of(Map.of("CSI_NODE_NAME", name)));

    assertThatThrownBy(source::fetch).isInstanceOf(MetadataUnavailableException.class)
        .hasMessageContaining("CSI_NODE_NAME");
  }
}
