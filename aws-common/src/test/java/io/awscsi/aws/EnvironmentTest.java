package io.awscsi.aws;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EnvironmentTest {

  @Test
  void blankMeansUnsetAndValuesAreTrimmed() {
    Environment env = Environment.of(Map.of("A", "  ", "B", " value "));

    assertThat(env.get("A")).isEmpty();
    assertThat(env.isSet("A")).isFalse();
    assertThat(env.get("B")).contains("value");
    assertThat(env.get("C")).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({"true, true", "TRUE, true", "' true ', true", "1, false", "yes, false", "false, false"})
  void isTrueFollowsTheSdks(String value, boolean expected) {
    assertThat(Environment.of(Map.of("X", value)).isTrue("X")).isEqualTo(expected);
  }

  @Test
  void withReturnsACopy() {
    Environment base = Environment.empty();
    Environment changed = base.with("X", "1");

    assertThat(base.isSet("X")).isFalse();
    assertThat(changed.get("X")).contains("1");
  }
}
