package io.awscsi.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The "which log for which stage" table of docs/diagnose.md is the one generated from {@link Knowledge}. Run with
 * {@code -Ddiagnose.updateDocs=true} ({@code make docs-diagnose-table}) to rewrite it.
 */
class StageTableTest {

  private static final Path PAGE = Path.of("../docs/diagnose.md");

  @Test
  void theDocsTableIsTheGeneratedOne() throws IOException {
    String page = Files.readString(PAGE);
    String generated = StageTable.replaceIn(page);
    if ((Boolean.getBoolean("diagnose.updateDocs") || Boolean.getBoolean("diagnose.updateReadme"))
        && !generated.equals(page)) {
      Files.writeString(PAGE, generated);
      page = generated;
    }
    assertThat(page).as("docs/diagnose.md's diagnose table (make docs-diagnose-table regenerates it)")
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
