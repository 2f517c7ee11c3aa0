package io.awscsi.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README's "which log for which stage" table is the one generated from {@link Knowledge}. Run with
 * {@code -Ddiagnose.updateReadme=true} ({@code make readme-diagnose-table}) to rewrite it.
 */
class StageTableTest {

  private static final Path README = Path.of("../README.md");

  @Test
  void theReadmesTableIsTheGeneratedOne() throws IOException {
    String readme = Files.readString(README);
    String generated = StageTable.replaceIn(readme);
    if (Boolean.getBoolean("diagnose.updateReadme") && !generated.equals(readme)) {
      Files.writeString(README, generated);
      readme = generated;
    }
    assertThat(readme).as("README.md's diagnose table (make readme-diagnose-table regenerates it)")
        .isEqualTo(generated);
  }

  @Test
  void everyStageHasARowNamingItsComponentAndCommand() {
    String table = StageTable.markdown();

    for (Knowledge.Stage s : Knowledge.Stage.values()) {
      assertThat(table).containsPattern("\\| " + java.util.regex.Pattern.quote(s.title) + " \\| [^|]+ \\| [^|]+ \\|");
    }
    assertThat(table).contains("external-attacher-leader-ebs-csi-aws-com", "external-resizer-ebs-csi-aws-com",
        "external-snapshotter-leader-ebs-csi-aws-com", "ebs-csi-aws-com", "efs-csi-aws-com",
        "kubectl -n kube-system logs ebs-csi-node-XXXXX -c ebs-plugin");
  }
}
