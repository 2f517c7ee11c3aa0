package io.awscsi.aws.metadata;

import io.awscsi.aws.Environment;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Instance metadata from this node's Kubernetes Node object, for when IMDS is unreachable: the instance ID from {@code
 * spec.providerID} ({@code aws:///us-east-1a/i-0123...}), type, region and zone from the well-known labels. The Node
 * does not say how many ENIs or boot-time EBS volumes the instance has, so these are 1 and 0 as upstream assumes.
 */
public final class KubernetesMetadataSource implements MetadataSource {

  public static final String NAME = "kubernetes";

  /** The node's name, set by the DaemonSet from {@code spec.nodeName}. */
  public static final String NODE_NAME_VARIABLE = "CSI_NODE_NAME";

  public static final String INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type";
  public static final String REGION_LABEL = "topology.kubernetes.io/region";
  public static final String ZONE_LABEL = NodeTopology.WELL_KNOWN_ZONE_KEY;
  /** Set by EKS and the AWS cloud controller manager; optional. */
  public static final String ZONE_ID_LABEL = NodeTopology.ZONE_ID_KEY;

  /** Upstream's instance ID pattern (metadata/k8s.go): Snow {@code s.i-...}, plain or SageMaker HyperPod IDs. */
  private static final Pattern INSTANCE_ID = Pattern.compile("s\\.i-[a-z0-9]+|(hyperpod-[a-z0-9]+-)?i-[a-z0-9]+$");

  /** A Node's name: a DNS-1123 subdomain. */
  private static final Pattern NODE_NAME =
      Pattern.compile("(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  /** SageMaker HyperPod labels instance types as {@code ml.<type>}. */
  private static final String SAGEMAKER_TYPE_PREFIX = "ml.";

  private final Supplier<KubernetesClient> client;
  private final Environment environment;

  /**
   * @param client asked for the client only when metadata is fetched, so a node without Kubernetes access still starts
   */
  public KubernetesMetadataSource(Supplier<KubernetesClient> client, Environment environment) {
    this.client = Objects.requireNonNull(client, "client");
    this.environment = Objects.requireNonNull(environment, "environment");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public InstanceMetadata fetch() throws MetadataUnavailableException {
    String nodeName =
        environment
            .get(NODE_NAME_VARIABLE)
            .orElseThrow(
                () ->
                    new MetadataUnavailableException(
                        NODE_NAME_VARIABLE + " is not set; the DaemonSet should set it from spec.nodeName"));
    if (!NODE_NAME.matcher(nodeName).matches()) {
      // The name goes into an API path: only what Kubernetes allows as a Node name is asked for.
      String shown = nodeName.length() > 80 ? nodeName.substring(0, 80) + "..." : nodeName;
      throw new MetadataUnavailableException(NODE_NAME_VARIABLE + " \"" + shown + "\" is not a Kubernetes node name "
          + "(a DNS-1123 subdomain); the DaemonSet should set it from spec.nodeName");
    }
    Node node;
    try {
      node = client.get().nodes().withName(nodeName).get();
    } catch (KubernetesClientException e) {
      String hint = e.getCode() == 403 ? " (the node service account needs RBAC get on nodes)" : "";
      throw new MetadataUnavailableException(
          "could not read Node " + nodeName + ": " + e.getMessage() + hint, e);
    } catch (RuntimeException e) {
      throw new MetadataUnavailableException(
          "could not reach the Kubernetes API to read Node " + nodeName + ": " + e.getMessage(), e);
    }
    if (node == null) {
      throw new MetadataUnavailableException("Node " + nodeName + " (from " + NODE_NAME_VARIABLE + ") does not exist");
    }
    String providerId = node.getSpec() == null ? null : node.getSpec().getProviderID();
    if (providerId == null || providerId.isBlank()) {
      throw new MetadataUnavailableException("Node " + nodeName + " has no spec.providerID");
    }
    String instanceId =
        instanceIdFromProviderId(providerId)
            .orElseThrow(
                () ->
                    new MetadataUnavailableException(
                        "Node " + nodeName + " spec.providerID '" + providerId + "' holds no EC2 instance ID"));
    Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    String instanceType = requiredLabel(labels, INSTANCE_TYPE_LABEL, nodeName);
    if (instanceType.startsWith(SAGEMAKER_TYPE_PREFIX)) {
      instanceType = instanceType.substring(SAGEMAKER_TYPE_PREFIX.length());
    }
    return new InstanceMetadata(
        instanceId,
        instanceType,
        requiredLabel(labels, REGION_LABEL, nodeName),
        requiredLabel(labels, ZONE_LABEL, nodeName),
        labels.get(ZONE_ID_LABEL),
        1,
        0,
        null);
  }

  /** The EC2 instance ID in a Node's {@code spec.providerID}, empty when there is none. */
  public static Optional<String> instanceIdFromProviderId(String providerId) {
    Matcher m = INSTANCE_ID.matcher(providerId);
    return m.find() ? Optional.of(m.group()) : Optional.empty();
  }

  private static String requiredLabel(Map<String, String> labels, String label, String nodeName)
      throws MetadataUnavailableException {
    String value = labels.get(label);
    if (value == null || value.isBlank()) {
      throw new MetadataUnavailableException("Node " + nodeName + " has no label " + label);
    }
    return value.trim();
  }
}
