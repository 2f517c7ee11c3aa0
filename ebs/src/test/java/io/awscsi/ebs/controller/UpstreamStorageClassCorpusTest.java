package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.VolumeCapability;
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
 * Proof (b) of issue 26: every row of upstream-storageclass-corpus.txt (each parameter of upstream's parameters
 * documentation, valid and invalid, and upstream's example classes) gives the outcome upstream's code gives.
 */
class UpstreamStorageClassCorpusTest {

  record Row(String name, Map<String, String> parameters, Map<String, String> mutable,
      List<VolumeCapability> capabilities, List<String> expectations, Map<String, String> snapshot,
      boolean isSnapshot) {}

  static List<Row> rows() throws IOException {
    String text;
    try (InputStream in = UpstreamStorageClassCorpusTest.class.getResourceAsStream(
        "/upstream-storageclass-corpus.txt")) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    List<Row> rows = new ArrayList<>();
    String name = null;
    Map<String, String> params = null;
    Map<String, String> mutable = null;
    List<VolumeCapability> caps = null;
    List<String> expects = null;
    Map<String, String> snap = null;
    boolean isSnap = false;
    for (String line : (text + "\ncase end").split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String word = line.contains(" ") ? line.substring(0, line.indexOf(' ')) : line;
      String rest = line.substring(word.length()).isEmpty() ? "" : line.substring(word.length() + 1);
      switch (word) {
        case "case" -> {
          if (name != null) {
            rows.add(new Row(name, params, mutable, caps, expects, snap, isSnap));
          }
          name = rest;
          params = new LinkedHashMap<>();
          mutable = new LinkedHashMap<>();
          caps = List.of(VolumeCapability.mount(AccessMode.SINGLE_NODE_WRITER, "ext4"));
          expects = new ArrayList<>();
          snap = new LinkedHashMap<>();
          isSnap = false;
        }
        case "snap" -> {
          isSnap = true;
          if (!rest.isEmpty()) {
            snap.put(rest.substring(0, rest.indexOf('=')), rest.substring(rest.indexOf('=') + 1));
          }
        }
        case "param" -> params.put(rest.substring(0, rest.indexOf('=')), rest.substring(rest.indexOf('=') + 1));
        case "mutable" -> mutable.put(rest.substring(0, rest.indexOf('=')), rest.substring(rest.indexOf('=') + 1));
        case "cap" -> caps = rest.equals("block") ? List.of(VolumeCapability.block(AccessMode.SINGLE_NODE_WRITER))
            : List.of(VolumeCapability.mount(AccessMode.SINGLE_NODE_WRITER, rest.substring("mount ".length())));
        case "expect" -> expects.add(rest);
        default -> throw new IllegalStateException("corpus line not understood: " + line);
      }
    }
    return rows;
  }

  @Test
  void corpusCoversEveryDocumentedKey() throws IOException {
    List<String> keys = rows().stream().flatMap(r -> r.parameters().keySet().stream()).map(String::toLowerCase)
        .toList();
    assertThat(keys).contains("type", "iops", "iopspergb", "allowautoiopspergbincrease",
        "allowautoiopsincreaseonmodify", "throughput", "encrypted", "kmskeyid", "csi.storage.k8s.io/fstype",
        "blocksize", "inodesize", "bytesperinode", "numberofinodes", "ext4bigalloc", "ext4clustersize",
        "ext4encryptionsupport", "volumeinitializationrate", "blockattachuntilinitialized", "blockexpress", "fstype",
        "tagspecification_1", "csi.storage.k8s.io/pvc/name");
    assertThat(rows()).hasSizeGreaterThan(70);
  }

  @TestFactory
  List<DynamicTest> everyRowGivesUpstreamsOutcome() throws IOException {
    return rows().stream().map(row -> DynamicTest.dynamicTest(row.name(), () -> check(row))).toList();
  }

  private static void check(Row row) {
    assertThat(row.expectations()).as(row.name()).isNotEmpty();
    if (row.isSnapshot()) {
      checkSnapshot(row);
      return;
    }
    if (row.expectations().getFirst().startsWith("error ")) {
      String field = row.expectations().getFirst().substring("error ".length());
      assertThatThrownBy(() -> VolumeParameters.parse(row.parameters(), row.mutable(), row.capabilities()))
          .as(row.name()).isInstanceOfSatisfying(DriverException.class, e -> {
            assertThat(e.error()).isInstanceOf(DriverError.InvalidArgument.class);
            assertThat(((DriverError.InvalidArgument) e.error()).field()).as(row.name()).isEqualTo(field);
          });
      return;
    }
    VolumeParameters p = VolumeParameters.parse(row.parameters(), row.mutable(), row.capabilities());
    for (String expect : row.expectations()) {
      String field = expect.substring(0, expect.indexOf('='));
      String want = expect.substring(expect.indexOf('=') + 1);
      assertThat(value(p, field)).as(row.name() + ": " + field).isEqualTo(want);
    }
  }

  private static void checkSnapshot(Row row) {
    String expect = row.expectations().getFirst();
    if (expect.equals("ok")) {
      assertThat(SnapshotParameters.parse(row.snapshot())).as(row.name()).isNotNull();
      return;
    }
    String field = expect.substring("error ".length());
    assertThatThrownBy(() -> SnapshotParameters.parse(row.snapshot())).as(row.name())
        .isInstanceOfSatisfying(DriverException.class, e -> {
          assertThat(e.error()).isInstanceOf(DriverError.InvalidArgument.class);
          assertThat(((DriverError.InvalidArgument) e.error()).field()).as(row.name()).isEqualTo(field);
        });
  }

  private static String value(VolumeParameters p, String field) {
    if (field.startsWith("format.")) {
      return p.formatOptions().getOrDefault(field.substring("format.".length()), "");
    }
    if (field.startsWith("tags.")) {
      return p.tagSpecifications().getOrDefault(field.substring("tags.".length()), "");
    }
    return switch (field) {
      case "type" -> p.type().ec2Name();
      case "iops" -> Integer.toString(p.iops());
      case "iopsPerGiB" -> Integer.toString(p.iopsPerGiB());
      case "throughput" -> Integer.toString(p.throughput());
      case "encrypted" -> Boolean.toString(p.encrypted());
      case "kmsKeyId" -> p.kmsKeyId();
      case "allowAutoIopsPerGiBIncrease" -> Boolean.toString(p.allowAutoIopsPerGiBIncrease());
      case "allowAutoIopsIncreaseOnModify" -> Boolean.toString(p.allowAutoIopsIncreaseOnModify());
      case "initializationRate" -> Integer.toString(p.initializationRate());
      case "blockAttachUntilInitialized" -> Boolean.toString(p.blockAttachUntilInitialized());
      default -> throw new IllegalStateException("unknown corpus field " + field);
    };
  }
}
