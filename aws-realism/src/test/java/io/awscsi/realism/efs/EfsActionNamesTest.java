package io.awscsi.realism.efs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EfsActionNamesTest {

  @ParameterizedTest(name = "{0} {1} is {2}")
  @CsvSource({
      "POST, /2015-02-01/access-points, CreateAccessPoint",
      "GET, /2015-02-01/access-points, DescribeAccessPoints",
      "DELETE, /2015-02-01/access-points/fsap-123, DeleteAccessPoint",
      "POST, /2015-02-01/file-systems, CreateFileSystem",
      "GET, /2015-02-01/file-systems, DescribeFileSystems",
      "DELETE, /2015-02-01/file-systems/fs-1, DeleteFileSystem",
      "GET, /2015-02-01/mount-targets, DescribeMountTargets",
      "POST, /2015-02-01/resource-tags/fs-1, TagResource",
  })
  void restCallsAreNamedByTheirApiAction(String method, String path, String action) {
    assertThat(EfsHandler.actionOf(method, path)).isEqualTo(action);
  }
}
