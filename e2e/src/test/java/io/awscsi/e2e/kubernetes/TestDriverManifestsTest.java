package io.awscsi.e2e.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The test-driver manifests in {@code e2e/kubernetes/} claim only what the driver does. A storage-suite capability
 * is claimed exactly when the CSI capabilities it rests on are advertised by the driver (as ControllerService and
 * NodeService derive them from the providers), and the StorageClass it names is one the chart renders.
 */
class TestDriverManifestsTest {

  private static final Path MANIFESTS = Path.of("kubernetes");
  private static final Path CHART_VALUES = Path.of("../helm/aws-csi-driver/values.yaml");
  private static final YAMLMapper YAML = new YAMLMapper();

  /** What each driver advertises (controller, node and plugin capabilities), and its other traits. */
  enum Driver {
    EBS("ebs.csi.aws.com", "ebs-test-driver.yaml", "defaultStorageClass",
        Set.of("CREATE_DELETE_VOLUME", "CLONE_VOLUME", "PUBLISH_UNPUBLISH_VOLUME", "CREATE_DELETE_SNAPSHOT",
            "LIST_SNAPSHOTS", "EXPAND_VOLUME", "MODIFY_VOLUME", "LIST_VOLUMES", "GET_VOLUME",
            "NODE_STAGE_UNSTAGE_VOLUME", "NODE_EXPAND_VOLUME", "ONLINE_EXPANSION", "VOLUME_ACCESSIBILITY_CONSTRAINTS",
            "BLOCK_ACCESS", "FS_GROUP_POLICY_FILE", "MAX_VOLUMES_PER_NODE"),
        Set.of("ext3", "ext4", "xfs")),
    EFS("efs.csi.aws.com", "efs-test-driver.yaml", "efsStorageClass",
        Set.of("CREATE_DELETE_VOLUME", "MULTI_NODE_MULTI_WRITER"),
        Set.of(""));

    final String csiName;
    final String file;
    final String chartClassKey;
    final Set<String> advertised;
    final Set<String> fsTypes;

    Driver(String csiName, String file, String chartClassKey, Set<String> advertised, Set<String> fsTypes) {
      this.csiName = csiName;
      this.file = file;
      this.chartClassKey = chartClassKey;
      this.advertised = advertised;
      this.fsTypes = fsTypes;
    }
  }

  /** Each storage-suite capability and the driver capabilities it needs (all of them). */
  private static final Map<String, Set<String>> NEEDS = Map.ofEntries(
      Map.entry("persistence", Set.of("CREATE_DELETE_VOLUME")),
      Map.entry("exec", Set.of("CREATE_DELETE_VOLUME")),
      Map.entry("multipods", Set.of("CREATE_DELETE_VOLUME")),
      Map.entry("block", Set.of("BLOCK_ACCESS")),
      Map.entry("fsGroup", Set.of("FS_GROUP_POLICY_FILE")),
      Map.entry("snapshotDataSource", Set.of("CREATE_DELETE_SNAPSHOT")),
      Map.entry("pvcDataSource", Set.of("CLONE_VOLUME")),
      Map.entry("controllerExpansion", Set.of("EXPAND_VOLUME")),
      Map.entry("nodeExpansion", Set.of("NODE_EXPAND_VOLUME")),
      Map.entry("onlineExpansion", Set.of("EXPAND_VOLUME", "ONLINE_EXPANSION")),
      Map.entry("volumeLimits", Set.of("MAX_VOLUMES_PER_NODE")),
      Map.entry("topology", Set.of("VOLUME_ACCESSIBILITY_CONSTRAINTS")),
      Map.entry("RWX", Set.of("MULTI_NODE_MULTI_WRITER")));

  @ParameterizedTest
  @EnumSource(Driver.class)
  void namesTheDriverAndAStorageClassTheChartRenders(Driver driver) {
    JsonNode manifest = YAML.readTree(MANIFESTS.resolve(driver.file).toFile());
    assertThat(manifest.path("DriverInfo").path("Name").asString()).isEqualTo(driver.csiName);
    String chartClass = YAML.readTree(CHART_VALUES.toFile()).path(driver.chartClassKey).path("name").asString();
    assertThat(manifest.path("StorageClass").path("FromExistingClassName").asString()).isEqualTo(chartClass);
  }

  @ParameterizedTest
  @EnumSource(Driver.class)
  void claimsACapabilityExactlyWhenTheDriverAdvertisesWhatItNeeds(Driver driver) {
    JsonNode caps = YAML.readTree(MANIFESTS.resolve(driver.file).toFile()).path("DriverInfo").path("Capabilities");
    assertThat(NEEDS.keySet()).as("every capability the manifest names has a rule here")
        .containsAll(caps.propertyNames());
    NEEDS.forEach((capability, needs) -> assertThat(caps.path(capability).asBoolean(false))
        .as("%s claims %s (needs %s)", driver.csiName, capability, needs)
        .isEqualTo(driver.advertised.containsAll(needs)));
  }

  @ParameterizedTest
  @EnumSource(Driver.class)
  void listsOnlyTheFileSystemsTheNodeFormats(Driver driver) {
    JsonNode fsTypes = YAML.readTree(MANIFESTS.resolve(driver.file).toFile()).path("DriverInfo").path("SupportedFsType");
    assertThat(new TreeSet<>(fsTypes.propertyNames())).isEqualTo(new TreeSet<>(driver.fsTypes));
  }
}
