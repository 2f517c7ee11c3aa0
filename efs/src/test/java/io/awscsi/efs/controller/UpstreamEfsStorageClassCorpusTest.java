package io.awscsi.efs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Proof (b) of issue 26 for EFS: every row of upstream-storageclass-corpus.txt (each parameter of upstream's
 * documentation, valid and invalid, and upstream's example classes) gives the outcome upstream's code gives.
 */
class UpstreamEfsStorageClassCorpusTest {

  record Row(String name, Map<String, String> parameters, List<String> expectations) {}

  static List<Row> rows() throws IOException {
    String text;
    try (InputStream in = UpstreamEfsStorageClassCorpusTest.class.getResourceAsStream(
        "/upstream-storageclass-corpus.txt")) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    List<Row> rows = new ArrayList<>();
    String name = null;
    Map<String, String> params = null;
    List<String> expects = null;
    for (String line : (text + "\ncase end").split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String word = line.substring(0, line.indexOf(' '));
      String rest = line.substring(line.indexOf(' ') + 1);
      switch (word) {
        case "case" -> {
          if (name != null) {
            rows.add(new Row(name, params, expects));
          }
          name = rest;
          params = new LinkedHashMap<>();
          expects = new ArrayList<>();
        }
        case "param" -> params.put(rest.substring(0, rest.indexOf('=')), rest.substring(rest.indexOf('=') + 1));
        case "expect" -> expects.add(rest);
        default -> throw new IllegalStateException("corpus line not understood: " + line);
      }
    }
    return rows;
  }

  @Test
  void corpusCoversEveryDocumentedKey() throws IOException {
    List<String> keys = rows().stream().flatMap(r -> r.parameters().keySet().stream()).toList();
    assertThat(keys).contains("provisioningMode", "fileSystemId", "directoryPerms", "uid", "gid", "gidRangeStart",
        "gidRangeEnd", "basePath", "subPathPattern", "ensureUniqueDirectory", "reuseAccessPoint", "az",
        "enforceZoneAffinity", "enableTagging");
  }

  @TestFactory
  List<DynamicTest> everyRowGivesUpstreamsOutcome() throws IOException {
    return rows().stream().map(row -> DynamicTest.dynamicTest(row.name(), () -> check(row))).toList();
  }

  private static void check(Row row) {
    assertThat(row.expectations()).as(row.name()).isNotEmpty();
    if (row.expectations().getFirst().startsWith("error ")) {
      String text = row.expectations().getFirst().substring("error ".length());
      assertThatThrownBy(() -> EfsVolumeParameters.parse(row.parameters(), Map.of())).as(row.name())
          .isInstanceOfSatisfying(DriverException.class,
              e -> assertThat(e.error()).isInstanceOf(DriverError.InvalidArgument.class))
          .hasMessageContaining(text);
      return;
    }
    EfsVolumeParameters p = EfsVolumeParameters.parse(row.parameters(), Map.of());
    for (String expect : row.expectations()) {
      String field = expect.substring(0, expect.indexOf('='));
      String want = expect.substring(expect.indexOf('=') + 1);
      assertThat(value(p, field)).as(row.name() + ": " + field).isEqualTo(want);
    }
  }

  private static String value(EfsVolumeParameters p, String field) {
    return switch (field) {
      case "mode" -> p.mode().parameterValue();
      case "fileSystemId" -> p.fileSystemId();
      case "directoryPerms" -> p.directoryPerms();
      case "uid" -> Long.toString(p.uid());
      case "gid" -> Long.toString(p.gid());
      case "gidRange" -> p.gidRange().start() + "-" + p.gidRange().end();
      case "basePath" -> p.basePath();
      case "subPathPattern" -> p.subPathPattern();
      case "ensureUniqueDirectory" -> Boolean.toString(p.ensureUniqueDirectory());
      case "reuseAccessPoint" -> Boolean.toString(p.reuseAccessPoint());
      case "az" -> p.az();
      case "enforceZoneAffinity" -> Boolean.toString(p.enforceZoneAffinity());
      case "enableTagging" -> Boolean.toString(p.enableTagging());
      default -> throw new IllegalStateException("unknown corpus field " + field);
    };
  }
}
