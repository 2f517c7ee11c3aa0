package io.awscsi.efs.volume;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EfsPathsTest {

  @ParameterizedTest(name = "clean({0}) = {1}")
  @CsvSource({
      "'', /", "., /", "/, /", "//, /", "a, /a", "/a/, /a", "/a//b/./c, /a/b/c", "/a/../b, /b", "/../.., /",
      "a/b/../../.., /", "/a/b/.., /a"})
  void cleansLexicallyWithinTheRoot(String path, String clean) {
    assertThat(EfsPaths.clean(path)).isEqualTo(clean);
  }

  @ParameterizedTest(name = "{0} below {1}: {2}")
  @CsvSource({
      "/a/b, /a, true", "/a, /a, false", "/ab, /a, false", "/a, /, true", "/, /, false", "/b, /a, false"})
  void strictlyBelowComparesWholeSegments(String path, String ancestor, boolean below) {
    assertThat(EfsPaths.isStrictlyBelow(path, ancestor)).isEqualTo(below);
  }

  @ParameterizedTest(name = "climbs({0}) = {1}")
  @CsvSource({"/a/../b, true", ".., true", "/a/..b, false", "/a/b.., false", "/a/b, false"})
  void detectsParentSegments(String path, boolean climbs) {
    assertThat(EfsPaths.climbs(path)).isEqualTo(climbs);
  }
}
