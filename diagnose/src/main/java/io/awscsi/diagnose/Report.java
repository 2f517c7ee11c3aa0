package io.awscsi.diagnose;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.awscsi.diagnose.Diagnosis.DriverLog;
import io.awscsi.diagnose.Diagnosis.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The diagnoses as a person reads them, or as JSON for tools ({@code -o json}); and the exit code they give. */
final class Report {

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Report() {}

  /** 0 healthy (or in progress), 1 stuck or failed, 2 could not tell: the worst of the diagnoses. */
  static int exitCode(List<Diagnosis> diagnoses) {
    boolean unknown = false;
    for (Diagnosis d : diagnoses) {
      if (d.verdict().problem()) {
        return 1;
      }
      unknown |= d.verdict() == Verdict.UNKNOWN;
    }
    return unknown ? 2 : 0;
  }

  static String text(List<Diagnosis> diagnoses) {
    StringBuilder out = new StringBuilder();
    for (Diagnosis d : diagnoses) {
      if (!out.isEmpty()) {
        out.append('\n');
      }
      out.append(d.subject()).append(": ").append(d.verdict().words.toUpperCase(java.util.Locale.ROOT)).append('\n');
      out.append("  ").append(d.summary()).append('\n');
      if (d.stage() != null) {
        field(out, "Stage", d.stage().title);
        field(out, "Component", d.where());
        if (!d.error().isEmpty()) {
          field(out, "Reported", d.error());
        }
        field(out, "Means", d.meaning());
        field(out, "Do", d.action());
      }
      DriverLog log = d.driverLog();
      if (log != null) {
        if (log.line() != null) {
          out.append("  Driver's line (").append(log.namespace()).append('/').append(log.pod()).append(", container ")
              .append(log.container()).append("):\n");
          for (String l : log.line().line().split("\n")) {
            out.append("    ").append(l).append('\n');
          }
          out.append("    (").append(log.note()).append(")\n");
        } else {
          field(out, "Driver's line", log.note());
        }
      }
      list(out, "Full log", d.commands());
      list(out, "Seen", d.evidence());
      list(out, "Also", d.also());
      list(out, "Could not read", d.gaps());
    }
    return out.toString();
  }

  private static void field(StringBuilder out, String name, String value) {
    String label = "  " + name + ": ";
    String indent = " ".repeat(label.length());
    String[] lines = value.split("\n");
    out.append(label).append(lines[0]).append('\n');
    for (int i = 1; i < lines.length; i++) {
      out.append(indent).append(lines[i]).append('\n');
    }
  }

  private static void list(StringBuilder out, String name, List<String> items) {
    if (items.isEmpty()) {
      return;
    }
    out.append("  ").append(name).append(":\n");
    for (String item : items) {
      out.append("    ").append(item).append('\n');
    }
  }

  static String json(List<Diagnosis> diagnoses) {
    List<Map<String, Object>> items = new ArrayList<>();
    for (Diagnosis d : diagnoses) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("subject", d.subject());
      m.put("verdict", d.verdict().name().toLowerCase(java.util.Locale.ROOT));
      m.put("summary", d.summary());
      m.put("stage", d.stage() == null ? null : d.stage().title);
      m.put("component", d.component());
      m.put("where", d.where());
      m.put("reported", d.error());
      m.put("knownError", d.knownError());
      m.put("meaning", d.meaning());
      m.put("action", d.action());
      m.put("volumeHandle", d.volumeHandle());
      m.put("node", d.node());
      m.put("commands", d.commands());
      DriverLog log = d.driverLog();
      if (log != null) {
        Map<String, Object> l = new LinkedHashMap<>();
        l.put("namespace", log.namespace());
        l.put("pod", log.pod());
        l.put("container", log.container());
        if (log.line() != null) {
          l.put("line", log.line().line());
          l.put("time", log.line().time());
          l.put("method", log.line().method());
          l.put("outcome", log.line().outcome());
          l.put("error", log.line().error());
        }
        l.put("note", log.note());
        m.put("driverLog", l);
      }
      m.put("evidence", d.evidence());
      m.put("also", d.also());
      m.put("gaps", d.gaps());
      items.add(m);
    }
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("exitCode", exitCode(diagnoses));
    root.put("diagnoses", items);
    try {
      return JSON.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the report as JSON", e);
    }
  }
}
