package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ResourceTagsTest {

  private static final Map<String, String> FIELDS = Map.of("PVCName", "data", "PVCNamespace", "shop",
      "PVName", "pvc-1");

  @Test
  void volumeTagsCombineExtraUserClusterAndDriverTags() {
    ResourceTags tags = new ResourceTags(Map.of("env", "prod", "team", "a"), "kube1", false);
    Map<String, String> user = tags.userTags(Map.of("tagSpecification_1", "team={{ .PVCNamespace }}"), FIELDS);
    Map<String, String> all = tags.forVolume("pvc-1", user, Map.of("kubernetes.io/created-for/pvc/name", "data"),
        Map.of());
    assertThat(all).containsEntry("CSIVolumeName", "pvc-1")
        .containsEntry("ebs.csi.aws.com/cluster", "true")
        .containsEntry("env", "prod")
        .containsEntry("team", "shop")
        .containsEntry("kubernetes.io/created-for/pvc/name", "data")
        .containsEntry("kubernetes.io/cluster/kube1", "owned")
        .containsEntry("KubernetesCluster", "kube1")
        .containsEntry("Name", "kube1-dynamic-pvc-1")
        .containsEntry("ebs.csi.aws.com/cluster-name", "kube1");
  }

  @Test
  void snapshotTagsCarryTheSnapshotName() {
    ResourceTags tags = new ResourceTags(Map.of(), "", false);
    assertThat(tags.forSnapshot("snap-name", Map.of(), Map.of())).containsEntry("CSIVolumeSnapshotName", "snap-name")
        .containsEntry("ebs.csi.aws.com/cluster", "true").doesNotContainKey("CSIVolumeName");
  }

  @ParameterizedTest
  @ValueSource(strings = {"CSIVolumeName=x", "kubernetes.io/foo=x", "ebs.csi.aws.com/x=y", "aws:owner=x", "novalue",
      "k={{ .Nope }}", "a\nb=x", "k=line\nbreak", "k=\u001b[2J", "k=\u0085"})
  void invalidUserTagsAreInvalidArgumentNamingTheParameter(String spec) {
    ResourceTags tags = new ResourceTags(Map.of(), "", false);
    assertThatThrownBy(() -> tags.userTags(Map.of("tagSpecification_7", spec), FIELDS))
        .isInstanceOfSatisfying(DriverException.class, e -> assertThat(((DriverError.InvalidArgument) e.error())
            .field()).isEqualTo("tagSpecification_7"));
  }

  @Test
  void warnOnInvalidTagDropsOnlyTheBadOnes() {
    ResourceTags tags = new ResourceTags(Map.of(), "", true);
    assertThat(tags.userTags(Map.of("tagSpecification_1", "kubernetes.io/x=y", "tagSpecification_2", "ok=1",
        "tagSpecification_3", "bad={{ .Nope }}"), FIELDS)).containsExactly(Map.entry("ok", "1"));
  }

  @Test
  void extraTagsWithReservedKeysAreRefusedAtStartup() {
    assertThatThrownBy(() -> EbsControllerOptions.defaults("us-east-1")
        .withExtraTags(Map.of("kubernetes.io/cluster/x", "owned"))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void overlongKeysAndValuesAreRefusedBeforeEc2IsAsked() {
    ResourceTags tags = new ResourceTags(Map.of(), "", false);
    assertThatThrownBy(() -> tags.userTags(Map.of("tagSpecification_1", "k".repeat(129) + "=v"), FIELDS))
        .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.getMessage()).contains("1 to 128"));
    assertThatThrownBy(() -> tags.userTags(Map.of("tagSpecification_2", "k=" + "v".repeat(257)), FIELDS))
        .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.getMessage()).contains("256"));
  }

  @Test
  void moreThanFiftyTagsOnAVolumeAreInvalidArgumentEvenWhenInvalidTagsOnlyWarn() {
    ResourceTags tags = new ResourceTags(Map.of(), "", true);
    Map<String, String> specs = new java.util.HashMap<>();
    for (int i = 0; i < 49; i++) {
      specs.put("tagSpecification_" + i, "k" + i + "=v");
    }
    Map<String, String> user = tags.userTags(specs, FIELDS);

    assertThatThrownBy(() -> tags.forVolume("pvc-1", user, Map.of(), Map.of()))
        .as("49 of the user's, the cluster tag and the name tag")
        .isInstanceOfSatisfying(DriverException.class, e -> {
          assertThat(((DriverError.InvalidArgument) e.error()).field()).isEqualTo("tagSpecification_N");
          assertThat(e.getMessage()).contains("at most 50", "51");
        });
    assertThat(tags.forSnapshot("snap", tags.userTags(Map.of("tagSpecification_1", "a=b"), FIELDS), Map.of()))
        .hasSize(3);
  }

  @Test
  void extraTagsFlagOverTheLimitsStopsTheController() {
    Map<String, String> many = new java.util.HashMap<>();
    for (int i = 0; i < 51; i++) {
      many.put("k" + i, "v");
    }
    assertThatThrownBy(() -> EbsControllerOptions.defaults("us-east-1").withExtraTags(many))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--extra-tags").hasMessageContaining("51");
    assertThatThrownBy(() -> EbsControllerOptions.defaults("us-east-1").withExtraTags(Map.of("k", "a\u0007")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("control");
  }
}
