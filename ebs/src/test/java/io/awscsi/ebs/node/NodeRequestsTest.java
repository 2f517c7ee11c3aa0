package io.awscsi.ebs.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.MkfsOptions;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.VolumeCapability;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Request checks shared by the node calls, and mkfs options from the volume context. */
class NodeRequestsTest {

  private static void assertInvalid(Runnable call, String field, String message) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.error())
            .isInstanceOfSatisfying(DriverError.InvalidArgument.class, error -> assertThat(error.field())
                .isEqualTo(field)))
        .hasMessageContaining(message);
  }

  @ParameterizedTest
  @CsvSource({
      "SINGLE_NODE_WRITER, false, true",
      "SINGLE_NODE_WRITER, true, true",
      "MULTI_NODE_MULTI_WRITER, true, true",
      "MULTI_NODE_MULTI_WRITER, false, false",
      "SINGLE_NODE_READER_ONLY, false, false",
      "MULTI_NODE_READER_ONLY, true, false",
      "SINGLE_NODE_MULTI_WRITER, false, false"})
  void acceptsOnlyTheAccessModesEbsOffers(AccessMode mode, boolean block, boolean supported) {
    var capability = block ? VolumeCapability.block(mode) : VolumeCapability.mount(mode, "ext4");
    if (supported) {
      NodeRequests.checkCapability(capability);
    } else {
      assertInvalid(() -> NodeRequests.checkCapability(capability), "volume_capability.access_mode",
          "access mode " + mode);
    }
  }

  @ParameterizedTest
  @CsvSource(value = {"'', ext4", "ext4, ext4", "XFS, xfs", "ext3, ext3"})
  void defaultsToExt4AndAcceptsTheLinuxTypes(String requested, String expected) {
    assertThat(NodeRequests.fsType(new AccessType.Mount(requested, List.of(), ""))).isEqualTo(expected);
  }

  @Test
  void refusesOtherFileSystemTypes() {
    assertInvalid(() -> NodeRequests.fsType(new AccessType.Mount("ntfs", List.of(), "")),
        "volume_capability.mount.fs_type", "'ntfs' is not supported");
  }

  @Test
  void mountFlagsGoThroughTheAllowlistOfTheFamily() {
    assertThat(NodeRequests.mountFlags("xfs", List.of("noatime", "nouuid"))).containsExactly("noatime", "nouuid");
    assertInvalid(() -> NodeRequests.mountFlags("ext4", List.of("noatime", "bind")),
        "volume_capability.mount.mount_flags", "\"bind\" is not allowed");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      relative/path
      /var/lib/kubelet/../etc
      /var/lib/./kubelet
      """)
  void pathsMustBeAbsoluteAndClean(String path) {
    assertInvalid(() -> NodeRequests.cleanPath(Path.of(path), "target_path"), "target_path", "must be an absolute");
  }

  @Test
  void readsMkfsOptionsFromTheVolumeContextWhateverTheCase() {
    var options = MkfsParameters.parse(Map.of("blocksize", "1024", "inodeSize", "256", "BytesPerInode", "8192",
        "numberOfInodes", "1000", "ext4BigAlloc", "true", "ext4clustersize", "16384", "ext4encryptionsupport", "true",
        "type", "gp3"), "ext4", false);

    assertThat(options).isEqualTo(new MkfsOptions(1024, 256, 8192L, 1000L, true, 16384, true, false));
  }

  @Test
  void theLegacyXfsFlagIsCarried() {
    assertThat(MkfsParameters.parse(Map.of(), "xfs", true)).isEqualTo(MkfsOptions.defaults().withXfsLegacyFormat(true));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      blockSize       | 4k    | ext4 | volume_context.blockSize       | must be a positive whole number, got '4k'
      inodeSize       | -256  | ext4 | volume_context.inodeSize       | must be a positive whole number
      ext4BigAlloc    | yes   | ext4 | volume_context.ext4BigAlloc    | must be true or false, got 'yes'
      bytesPerInode   | 16384 | xfs  | volume_context.bytesPerInode   | do not apply to xfs file systems
      ext4ClusterSize | 65536 | ext3 | volume_context.ext4ClusterSize | do not apply to ext3 file systems
      ext4EncryptionSupport | true | xfs | volume_context.ext4EncryptionSupport | do not apply to xfs file systems
      blockSize       | 99999999999 | ext4 | volume_context.blockSize | too large
      """)
  void invalidMkfsOptionsNameTheirKey(String key, String value, String fsType, String field, String message) {
    assertInvalid(() -> MkfsParameters.parse(Map.of(key, value), fsType, false), field, message);
  }
}
