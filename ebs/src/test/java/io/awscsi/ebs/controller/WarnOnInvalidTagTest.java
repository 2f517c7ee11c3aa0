package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.Volume;
import io.awscsi.ebs.cloud.EbsCloud;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Upstream's {@code --warn-on-invalid-tag}: reserved tag keys in {@code --extra-tags} and {@code tagSpecification_N}
 * are refused without it and dropped with a warning with it, through the controller's handlers on the in-memory EC2.
 */
class WarnOnInvalidTagTest {

  /** Upstream's reserved keys (docs/tagging.md, validation.go). */
  @ParameterizedTest
  @ValueSource(strings = {"CSIVolumeName", "CSIVolumeSnapshotName", "ebs.csi.aws.com/cluster-name",
      "kubernetes.io/cluster/x", "ebs.csi.aws.com/anything"})
  void aReservedExtraTagStopsTheControllerWithoutTheFlag(String key) {
    assertThatThrownBy(() -> InMemoryController.options().withExtraTags(Map.of(key, "v", "team", "a")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--extra-tags")
        .hasMessageContaining("--warn-on-invalid-tag");
  }

  @ParameterizedTest
  @ValueSource(strings = {"CSIVolumeName", "CSIVolumeSnapshotName", "ebs.csi.aws.com/cluster-name",
      "kubernetes.io/cluster/x", "ebs.csi.aws.com/anything"})
  void withTheFlagAReservedExtraTagIsDroppedAndTheRestArePut(String key) {
    Map<String, String> extra = new LinkedHashMap<>();
    extra.put(key, "from-extra-tags");
    extra.put("team", "a");
    InMemoryController controller = new InMemoryController(
        InMemoryController.options().withWarnOnInvalidTag(true).withExtraTags(extra));

    Volume v = controller.create("pvc-w", 1, Map.of());

    Map<String, String> tags = controller.cloud.peek(v.volumeId()).orElseThrow().tags();
    assertThat(tags).containsEntry("team", "a").containsEntry(EbsCloud.VOLUME_NAME_TAG, "pvc-w");
    assertThat(tags).doesNotContainValue("from-extra-tags");
  }

  @Test
  void aReservedTagSpecificationIsInvalidArgumentWithoutTheFlag() {
    InMemoryController controller = new InMemoryController();

    assertThatThrownBy(() -> controller.create("pvc-r", 1, Map.of("tagSpecification_1", "CSIVolumeName=mine",
        "tagSpecification_2", "team=b")))
        .isInstanceOf(DriverException.class).hasMessageContaining("CSIVolumeName is set by the driver");
    assertThat(controller.cloud.allDisks()).isEmpty();
  }

  @Test
  void withTheFlagAReservedTagSpecificationIsDroppedAndTheVolumeMade() {
    InMemoryController controller = new InMemoryController(InMemoryController.options().withWarnOnInvalidTag(true));

    Volume v = controller.create("pvc-s", 1, Map.of("tagSpecification_1", "CSIVolumeName=mine",
        "tagSpecification_2", "kubernetes.io/x=y", "tagSpecification_3", "team=b"));

    Map<String, String> tags = controller.cloud.peek(v.volumeId()).orElseThrow().tags();
    assertThat(tags).containsEntry("team", "b").containsEntry(EbsCloud.VOLUME_NAME_TAG, "pvc-s")
        .doesNotContainKey("kubernetes.io/x");
  }
}
