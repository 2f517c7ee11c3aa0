package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/plugin-flags.json is the driver's flag table (Usage.SERVE) as the chart tests read it (helm/tests
 * chart_checks.py): this test fails when the two differ. {@code -DwritePluginFlags=true} rewrites the file.
 */
class PluginFlagsFileTest {

  /** Surefire runs in the module's directory. */
  static final Path FILE = Path.of("..", "docs", "plugin-flags.json");

  @Test
  void theCommittedFileIsTheDriversFlagTable() throws IOException {
    String table = Usage.SERVE.json();
    if (Boolean.getBoolean("writePluginFlags")) {
      Files.writeString(FILE, table, StandardCharsets.UTF_8);
    }
    assertThat(Files.readString(FILE, StandardCharsets.UTF_8))
        .as("%s is stale: run mvn -o -q -pl launcher -am test -Dtest=PluginFlagsFileTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -DwritePluginFlags=true", FILE)
        .isEqualTo(table);
  }

  @Test
  void choicesAreTheValuesAFlagIsLimitedTo() {
    assertThat(Usage.SERVE.json()).contains("\"name\": \"mode\", \"takesValue\": true, \"value\": "
        + "\"controller|node|all\", \"choices\": [\"controller\", \"node\", \"all\"]");
    assertThat(Usage.SERVE.json()).contains("\"name\": \"legacy-xfs\", \"takesValue\": false, \"value\": \"\", "
        + "\"choices\": []");
  }
}
