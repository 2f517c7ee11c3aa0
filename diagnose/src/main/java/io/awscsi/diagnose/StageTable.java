package io.awscsi.diagnose;

import io.awscsi.diagnose.Knowledge.Actor;
import io.awscsi.diagnose.Knowledge.Stage;

/**
 * The table "which log for which stage" of docs/diagnose.md, generated from {@link Knowledge}: what {@code diagnose}
 * reports is what the table says. {@code aws-csi-driver diagnose --print-table} prints it; {@code make
 * docs-diagnose-table} writes it into docs/diagnose.md between {@link #BEGIN} and {@link #END}; a test fails when the
 * page's copy differs.
 */
final class StageTable {

  static final String BEGIN = "<!-- BEGIN diagnose stage table: generated from diagnose/.../Knowledge.java by"
      + " `make docs-diagnose-table`; do not edit -->";
  static final String END = "<!-- END diagnose stage table -->";

  private StageTable() {}

  /** The table in Markdown, for EBS, with a closing line for EFS. */
  static String markdown() {
    Driver d = Driver.EBS;
    StringBuilder out = new StringBuilder();
    out.append("| Stage | Done by | Container with the answer | Where Kubernetes shows it | CSI call | Full log |\n");
    out.append("|---|---|---|---|---|---|\n");
    for (Stage s : Stage.values()) {
      out.append("| ").append(s.title)
          .append(" | ").append(s.actor == Actor.NODE_PLUGIN ? "kubelet -> node plugin" : s.actor.component)
          .append(" | ").append(s.actor.container(d))
          .append(" | ").append(s.evidence)
          .append(" | ").append(s.csiMethod == null ? "-" : s.csiMethod)
          .append(" | ").append(String.join("<br>", s.actor.commandTemplates(d).stream()
              .map(c -> "`" + c.replace("|", "\\|") + "`").toList())).append(" |\n");
    }
    Driver e = Driver.EFS;
    out.append("\nEFS (").append(e.csiName).append("): the same with ").append(e.controllerApp()).append(", ")
        .append(e.nodeApp()).append(" and ").append(e.pluginContainer()).append("; only ")
        .append(Actor.PROVISIONER.component).append(" runs beside its controller (Lease ")
        .append(Actor.PROVISIONER.leaseName(e)).append("), and EFS volumes are neither attached, expanded nor"
            + " snapshotted.\n");
    return out.toString();
  }

  /** {@code page} with the table between the markers replaced by the generated one. */
  static String replaceIn(String page) {
    int begin = page.indexOf(BEGIN);
    int end = page.indexOf(END);
    if (begin < 0 || end < begin) {
      throw new IllegalStateException("the page has no diagnose table markers (" + BEGIN + " ... " + END + ")");
    }
    return page.substring(0, begin + BEGIN.length()) + "\n" + markdown() + page.substring(end);
  }
}
