package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.awscsi.ebs.controller.EbsParameterKeys;
import io.awscsi.efs.controller.EfsVolumeParameters;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/parameter-effects.json is the one table of every key a parameter parser accepts (EbsParameterKeys,
 * EfsVolumeParameters.KEYS) and every flag of the driver (Usage.SERVE), each with the tests that show its effect. This
 * fails when a parser or the flag table accepts something the table lacks, when the table names a key nothing accepts
 * any more, or a test that does not exist; and when the rendered table in docs/parameters.md differs from the JSON
 * ({@code -DwriteParameterEffects=true} rewrites it).
 */
class ParameterEffectsTableTest {

  /** Surefire runs in the module's directory. */
  static final Path ROOT = Path.of("..");
  static final Path TABLE = ROOT.resolve("docs/parameter-effects.json");
  static final Path RENDERED = ROOT.resolve("docs/parameters.md");
  static final String FLAG = "flag";
  static final String BEGIN = "<!-- parameter-effects.json rendered by ParameterEffectsTableTest: begin -->";
  static final String END = "<!-- parameter-effects.json rendered by ParameterEffectsTableTest: end -->";
  static final Path README = ROOT.resolve("README.md");
  static final String SUMMARY_BEGIN = "<!-- parameter-effects.json summarised by ParameterEffectsTableTest: begin -->";
  static final String SUMMARY_END = "<!-- parameter-effects.json summarised by ParameterEffectsTableTest: end -->";

  /** Kinds in the order the rendered table lists them, with their headings. */
  static final Map<String, String> KINDS = new LinkedHashMap<>();

  static {
    KINDS.put(EbsParameterKeys.STORAGE_CLASS, "EBS StorageClass");
    KINDS.put(EbsParameterKeys.VOLUME_ATTRIBUTES_CLASS_AT_CREATE, "EBS VolumeAttributesClass at CreateVolume");
    KINDS.put(EbsParameterKeys.VOLUME_ATTRIBUTES_CLASS, "EBS VolumeAttributesClass (ControllerModifyVolume)");
    KINDS.put(EbsParameterKeys.VOLUME_SNAPSHOT_CLASS, "EBS VolumeSnapshotClass");
    KINDS.put(EbsParameterKeys.VOLUME_GROUP_SNAPSHOT_CLASS, "EBS VolumeGroupSnapshotClass");
    KINDS.put("efs-storageclass", "EFS StorageClass");
    KINDS.put(FLAG, "Driver flags (`aws-csi-driver [serve]`, both drivers)");
  }

  record Entry(String kind, String key, String effect, String noEffect, List<String> tests) {}

  /** What the parsers and the flag table accept, by kind. */
  static Map<String, Set<String>> accepted() {
    Map<String, Set<String>> accepted = new LinkedHashMap<>();
    EbsParameterKeys.byKind().forEach((kind, keys) -> accepted.put(kind, new TreeSet<>(keys)));
    accepted.put("efs-storageclass", new TreeSet<>(EfsVolumeParameters.KEYS));
    accepted.put(FLAG, new TreeSet<>(Usage.SERVE.names()));
    return accepted;
  }

  static List<Entry> entries() throws IOException {
    JsonNode root = new ObjectMapper().readTree(TABLE.toFile());
    List<Entry> entries = new ArrayList<>();
    for (JsonNode e : root.get("entries")) {
      List<String> tests = new ArrayList<>();
      e.path("tests").forEach(t -> tests.add(t.asText()));
      entries.add(new Entry(e.path("kind").asText(), e.path("key").asText(), e.path("effect").asText(),
          e.path("noEffect").asText(""), tests));
    }
    return entries;
  }

  @Test
  void everyAcceptedKeyAndFlagHasAnEntryAndEveryEntryIsAccepted() throws IOException {
    Map<String, Set<String>> accepted = accepted();
    Map<String, Set<String>> listed = new LinkedHashMap<>();
    for (Entry e : entries()) {
      assertThat(KINDS).as("kind of %s", e.key()).containsKey(e.kind());
      assertThat(listed.computeIfAbsent(e.kind(), k -> new LinkedHashSet<>()).add(e.key()))
          .as("%s %s is listed twice", e.kind(), e.key()).isTrue();
    }
    for (String kind : KINDS.keySet()) {
      Set<String> missing = new TreeSet<>(accepted.get(kind));
      missing.removeAll(listed.getOrDefault(kind, Set.of()));
      assertThat(missing).as("%s accepted without an entry (with its effect test) in %s", kind, TABLE).isEmpty();
      Set<String> stale = new TreeSet<>(listed.getOrDefault(kind, Set.of()));
      stale.removeAll(accepted.get(kind));
      assertThat(stale).as("%s in %s but no longer accepted", kind, TABLE).isEmpty();
    }
  }

  @Test
  void everyEntrySaysItsEffectOrWhyItHasNoneAndNamesTests() throws IOException {
    for (Entry e : entries()) {
      assertThat(e.tests()).as("%s %s: the tests that show its effect", e.kind(), e.key()).isNotEmpty();
      assertThat(e.effect()).as("%s %s: its effect", e.kind(), e.key()).isNotBlank();
      if (e.effect().equals("none")) {
        assertThat(e.noEffect()).as("%s %s has no effect: noEffect says why", e.kind(), e.key()).isNotBlank();
      } else {
        assertThat(e.noEffect()).as("%s %s has an effect and a noEffect reason", e.kind(), e.key()).isEmpty();
      }
    }
  }

  @Test
  void everyTestTheTableNamesExists() throws IOException {
    Map<String, String> sources = new LinkedHashMap<>();
    List<String> missing = new ArrayList<>();
    for (Entry e : entries()) {
      for (String test : e.tests()) {
        String[] parts = test.split("#", 2);
        String source = sources.computeIfAbsent(parts[0], ParameterEffectsTableTest::testSource);
        if (parts.length != 2 || source == null || !declaresTest(source, parts[1])) {
          missing.add(e.kind() + " " + e.key() + ": " + test);
        }
      }
    }
    assertThat(missing).as("tests named in %s that are not a @Test or @ParameterizedTest method of that class",
        TABLE).isEmpty();
  }

  @Test
  void theTestCheckFindsTestMethodsOnly() {
    String source = """
        class X {
          @Test
          void shown() {}

          @ParameterizedTest(name = "{0}")
          @MethodSource("cases")
          void shownEach(String c) {}

          void helper() {}
        }
        """;
    assertThat(declaresTest(source, "shown")).isTrue();
    assertThat(declaresTest(source, "shownEach")).isTrue();
    assertThat(declaresTest(source, "helper")).isFalse();
    assertThat(declaresTest(source, "absent")).isFalse();
  }

  /** The source of a test class given by its qualified name, from any module's src/test/java; null if none. */
  static String testSource(String className) {
    String relative = "src/test/java/" + className.replace('.', '/') + ".java";
    try (Stream<Path> modules = Files.list(ROOT)) {
      for (Path module : modules.filter(Files::isDirectory).toList()) {
        Path file = module.resolve(relative);
        if (Files.isRegularFile(file)) {
          return Files.readString(file, StandardCharsets.UTF_8);
        }
      }
      return null;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Whether {@code source} declares {@code method} as a test: its annotations, then the method, nothing between. */
  static boolean declaresTest(String source, String method) {
    String annotation = "\\s*@[\\w.]+(\\s*\\([^)]*\\))?";
    return Pattern.compile("@(Test|ParameterizedTest)\\b(\\s*\\([^)]*\\))?(" + annotation + ")*\\s*(public\\s+)?void\\s+"
        + Pattern.quote(method) + "\\s*\\(").matcher(source).find();
  }

  @Test
  void theRenderedTableInTheParametersDocIsTheJson() throws IOException {
    String doc = Files.readString(RENDERED, StandardCharsets.UTF_8);
    int begin = doc.indexOf(BEGIN);
    int end = doc.indexOf(END);
    assertThat(begin).as("%s holds the markers %s ... %s", RENDERED, BEGIN, END).isNotNegative();
    assertThat(end).isGreaterThan(begin);
    String rendered = render(entries());
    String expected = doc.substring(0, begin + BEGIN.length()) + "\n" + rendered + doc.substring(end);
    if (Boolean.getBoolean("writeParameterEffects")) {
      Files.writeString(RENDERED, expected, StandardCharsets.UTF_8);
      doc = expected;
    }
    assertThat(doc).as("%s is stale: run mvn -o -q -pl launcher -am test -Dtest=ParameterEffectsTableTest"
        + " -Dsurefire.failIfNoSpecifiedTests=false -DwriteParameterEffects=true", RENDERED).isEqualTo(expected);
  }

  @Test
  void theReadmeSummaryIsTheJson() throws IOException {
    String doc = Files.readString(README, StandardCharsets.UTF_8);
    int begin = doc.indexOf(SUMMARY_BEGIN);
    int end = doc.indexOf(SUMMARY_END);
    assertThat(begin).as("%s holds the markers %s ... %s", README, SUMMARY_BEGIN, SUMMARY_END).isNotNegative();
    assertThat(end).isGreaterThan(begin);
    String expected = doc.substring(0, begin + SUMMARY_BEGIN.length()) + "\n" + summary(entries())
        + doc.substring(end);
    if (Boolean.getBoolean("writeParameterEffects")) {
      Files.writeString(README, expected, StandardCharsets.UTF_8);
      doc = expected;
    }
    assertThat(doc).as("%s is stale: run mvn -o -q -pl launcher -am test -Dtest=ParameterEffectsTableTest"
        + " -Dsurefire.failIfNoSpecifiedTests=false -DwriteParameterEffects=true", README).isEqualTo(expected);
  }

  /** One row per kind: every key or flag accepted, those without effect marked (the README's short form). */
  static String summary(List<Entry> entries) {
    StringBuilder b = new StringBuilder("\n| Kind | Accepted (* accepted for upstream compatibility, no effect) |\n"
        + "|---|---|\n");
    for (Map.Entry<String, String> kind : KINDS.entrySet()) {
      b.append("| ").append(kind.getValue()).append(" | ").append(String.join(", ", entries.stream()
          .filter(e -> e.kind().equals(kind.getKey()))
          .map(e -> "`" + (kind.getKey().equals(FLAG) ? "--" : "") + e.key() + "`" + (e.noEffect().isEmpty() ? ""
              : "*")).toList())).append(" |\n");
    }
    return b.append('\n').toString();
  }

  /** The table as Markdown: one table per kind, tests by class and method (the JSON has the packages). */
  static String render(List<Entry> entries) {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, String> kind : KINDS.entrySet()) {
      b.append("\n**").append(kind.getValue()).append("**\n\n| ").append(kind.getKey().equals(FLAG) ? "Flag" : "Key")
          .append(" | Effect | Shown by |\n|---|---|---|\n");
      entries.stream().filter(e -> e.kind().equals(kind.getKey())).forEach(e -> b.append("| `")
          .append(kind.getKey().equals(FLAG) ? "--" : "").append(e.key()).append("` | ")
          .append(cell(e.noEffect().isEmpty() ? e.effect() : "none: " + e.noEffect())).append(" | ")
          .append(String.join("<br>", e.tests().stream()
              .map(t -> "`" + t.substring(t.lastIndexOf('.', t.indexOf('#')) + 1) + "`").toList()))
          .append(" |\n"));
    }
    return b.append('\n').toString();
  }

  private static String cell(String text) {
    return text.replace("|", "\\|");
  }
}
