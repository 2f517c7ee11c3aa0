package io.awscsi.aws.tags;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TagLimitsTest {

  @Test
  void keysAreOneTo128CharactersWithoutAwsPrefixOrControls() {
    assertThat(TagLimits.keyProblem("team")).isEmpty();
    assertThat(TagLimits.keyProblem("k".repeat(128))).isEmpty();
    assertThat(TagLimits.keyProblem("\u00e9".repeat(128))).as("characters, not bytes").isEmpty();
    assertThat(TagLimits.keyProblem("")).hasValueSatisfying(p -> assertThat(p).contains("1 to 128"));
    assertThat(TagLimits.keyProblem("k".repeat(129))).hasValueSatisfying(p -> assertThat(p).contains("has 129"));
    assertThat(TagLimits.keyProblem("AWS:owner")).hasValueSatisfying(p -> assertThat(p).contains("aws:"));
    assertThat(TagLimits.keyProblem("a\nb")).hasValueSatisfying(p -> assertThat(p).contains("control", "index 1"));
    assertThat(TagLimits.keyProblem("a\u009bb")).isPresent();
  }

  @Test
  void valuesAreAtMost256CharactersWithoutControls() {
    assertThat(TagLimits.valueProblem("k", "")).isEmpty();
    assertThat(TagLimits.valueProblem("k", "v".repeat(256))).isEmpty();
    assertThat(TagLimits.valueProblem("k", "v".repeat(257))).hasValueSatisfying(p -> assertThat(p).contains("257"));
    assertThat(TagLimits.valueProblem("k\u001b", "a\u001b[2Jb")).hasValueSatisfying(p ->
        assertThat(p).contains("index 1", "\"k?\"").doesNotContain("\u001b"));
  }

  @Test
  void atMost50TagsAndTheFirstBadOneIsNamed() {
    Map<String, String> tags = new LinkedHashMap<>();
    for (int i = 0; i < 50; i++) {
      tags.put("k" + i, "v");
    }
    assertThat(TagLimits.problem(tags)).isEmpty();
    tags.put("k50", "v");
    assertThat(TagLimits.problem(tags)).hasValueSatisfying(p -> assertThat(p).contains("at most 50", "51"));
    assertThat(TagLimits.problem(Map.of("aws:x", "v"))).isPresent();
  }
}
