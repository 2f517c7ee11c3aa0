package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** EBS --extra-tags and EFS --tags: the one key=value parser (DriverOptions.keyValues) in both of its spellings. */
class TagFlagsTest {

  private static DriverOptions parse(String driver, String flag, String value) {
    return DriverOptions.parse(new String[] {"--driver", driver, "--" + flag, value}, Map.of());
  }

  @Test
  void extraTagsAreCommaSeparatedKeyEqualsValuePairsTrimmedAndAValueMayBeEmpty() {
    assertThat(parse("ebs", "extra-tags", "a=1, b = 2,c=").ebs().extraTags())
        .containsExactly(Map.entry("a", "1"), Map.entry("b", "2"), Map.entry("c", ""));
    assertThat(DriverOptions.parse(new String[] {"--driver", "ebs"}, Map.of()).ebs().extraTags()).isEmpty();
  }

  @Test
  void anEntryWithoutItsAssignmentStopsTheStartNamingIt() {
    assertThatThrownBy(() -> parse("ebs", "extra-tags", "a=1,b"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--extra-tags").hasMessageContaining("'b'");
    assertThatThrownBy(() -> parse("efs", "tags", "a:1 b"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--tags").hasMessageContaining("'b'");
  }

  @Test
  void efsTagsAreSpaceSeparatedKeyColonValuePairsWhereABackslashEscapesTheSpace() {
    assertThat(parse("efs", "tags", "team:a  cost\\ center:b").efs().tags())
        .containsExactly(Map.entry("team", "a"), Map.entry("cost center", "b"));
  }
}
