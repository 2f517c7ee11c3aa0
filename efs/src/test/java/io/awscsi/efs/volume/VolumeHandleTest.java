package io.awscsi.efs.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class VolumeHandleTest {

  static Stream<Arguments> validHandles() {
    return Stream.of(
        Arguments.of("efs:fs-0123abcd", "fs-0123abcd", "/", "", "efs:fs-0123abcd"),
        Arguments.of("efs:fs-0123abcd:/data", "fs-0123abcd", "/data", "", "efs:fs-0123abcd:/data"),
        Arguments.of("efs:fs-0123abcd::fsap-0123456789abcdef0", "fs-0123abcd", "/", "fsap-0123456789abcdef0",
            "efs:fs-0123abcd::fsap-0123456789abcdef0"),
        Arguments.of("efs:fs-0123abcd:/a/b:fsap-0123abcd", "fs-0123abcd", "/a/b", "fsap-0123abcd",
            "efs:fs-0123abcd:/a/b:fsap-0123abcd"),
        Arguments.of("fs-0123abcd", "fs-0123abcd", "/", "", "efs:fs-0123abcd"),
        Arguments.of("fs-0123abcd:/data", "fs-0123abcd", "/data", "", "efs:fs-0123abcd:/data"),
        Arguments.of("fs-0123abcd::fsap-0123abcd", "fs-0123abcd", "/", "fsap-0123abcd",
            "efs:fs-0123abcd::fsap-0123abcd"),
        Arguments.of("fs-0123abcd:/x:fsap-0123abcd", "fs-0123abcd", "/x", "fsap-0123abcd",
            "efs:fs-0123abcd:/x:fsap-0123abcd"),
        // Subpaths are cleaned like Go's path.Clean, and ".." cannot climb above the root.
        Arguments.of("efs:fs-0123abcd:data//x/./y/", "fs-0123abcd", "/data/x/y", "", "efs:fs-0123abcd:/data/x/y"),
        Arguments.of("efs:fs-0123abcd:/../../etc", "fs-0123abcd", "/etc", "", "efs:fs-0123abcd:/etc"),
        Arguments.of("efs:fs-0123abcd:/", "fs-0123abcd", "/", "", "efs:fs-0123abcd"),
        Arguments.of("efs:fs-0123456789abcdef0123456789abcdef01234567", "fs-0123456789abcdef0123456789abcdef01234567",
            "/", "", "efs:fs-0123456789abcdef0123456789abcdef01234567"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validHandles")
  void parsesEveryUpstreamForm(String id, String fileSystemId, String path, String accessPointId, String canonical) {
    VolumeHandle handle = VolumeHandle.parse(id);

    assertThat(handle.fileSystemId()).isEqualTo(fileSystemId);
    assertThat(handle.path()).isEqualTo(path);
    assertThat(handle.accessPointId()).isEqualTo(accessPointId);
    assertThat(handle.volumeId()).isEqualTo(canonical);
    assertThat(VolumeHandle.parse(handle.volumeId())).isEqualTo(handle);
  }

  static Stream<Arguments> invalidHandles() {
    return Stream.of(
        Arguments.of("", "is not a file system id"),
        Arguments.of("efs:", "is not a file system id"),
        Arguments.of("fs-123", "is not a file system id"),
        Arguments.of("fs-0123ABCD", "is not a file system id"),
        Arguments.of("efs:fsap-0123abcd", "is not a file system id"),
        Arguments.of("vol-0123abcd", "is not a file system id"),
        Arguments.of("efs:fs-0123abcd::ap-0123abcd", "is not an access point id"),
        Arguments.of("efs:fs-0123abcd::fsap-12", "is not an access point id"),
        Arguments.of("efs:fs-0123abcd:/a:fsap-0123abcd:extra", "too many"),
        Arguments.of("fs-0123abcd:/a:fsap-0123abcd:extra", "too many"),
        Arguments.of("s3files:fs-0123abcd", "S3 Files"),
        Arguments.of("fs-0123456789abcdef0123456789abcdef012345678", "is not a file system id"));
  }

  @ParameterizedTest(name = "[{index}] \"{0}\"")
  @MethodSource("invalidHandles")
  void refusesMalformedHandlesNamingTheField(String id, String why) {
    assertThatThrownBy(() -> VolumeHandle.parse(id))
        .isInstanceOfSatisfying(DriverException.class, e -> {
          assertThat(e.error()).isInstanceOf(DriverError.InvalidArgument.class);
          assertThat(((DriverError.InvalidArgument) e.error()).field()).isEqualTo("volume_id");
        })
        .hasMessageContaining(why);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("mountSources")
  void mountSourceIsFileSystemColonPath(String id, String source) {
    assertThat(VolumeHandle.parse(id).mountSource()).isEqualTo(source);
  }

  static Stream<Arguments> mountSources() {
    return Stream.of(
        Arguments.of("efs:fs-0123abcd", "fs-0123abcd:/"),
        Arguments.of("efs:fs-0123abcd:/a/b", "fs-0123abcd:/a/b"),
        Arguments.of("efs:fs-0123abcd::fsap-0123abcd", "fs-0123abcd:/"));
  }
}
