package io.awscsi.efs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.efs.volume.EfsPaths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class EfsVolumeParametersTest {

  private static final String FS = "fs-0123abcd";

  private static Map<String, String> ap(String... extra) {
    Map<String, String> p = new HashMap<>(Map.of("provisioningMode", "efs-ap", "fileSystemId", FS,
        "directoryPerms", "700"));
    for (int i = 0; i < extra.length; i += 2) {
      if (extra[i + 1] == null) {
        p.remove(extra[i]);
      } else {
        p.put(extra[i], extra[i + 1]);
      }
    }
    return p;
  }

  @Test
  void defaultsMatchUpstream() {
    EfsVolumeParameters p = EfsVolumeParameters.parse(ap(), Map.of());

    assertThat(p.mode()).isEqualTo(ProvisioningMode.ACCESS_POINT);
    assertThat(p.fileSystemId()).isEqualTo(FS);
    assertThat(p.uid()).isEqualTo(EfsVolumeParameters.UNSET);
    assertThat(p.gid()).isEqualTo(EfsVolumeParameters.UNSET);
    assertThat(p.gidRange()).isEqualTo(new GidRange(50000, 60000));
    assertThat(p.basePath()).isEqualTo("/");
    assertThat(p.ensureUniqueDirectory()).isTrue();
    assertThat(p.reuseAccessPoint()).isFalse();
    assertThat(p.enableTagging()).isTrue();
    assertThat(p.enforceZoneAffinity()).isFalse();
    assertThat(p.needsAllocation()).isTrue();
    assertThat(p.volumePath("pvc-1")).isEqualTo("/pvc-1");
  }

  @Test
  void readsEveryParameter() {
    EfsVolumeParameters p = EfsVolumeParameters.parse(ap("uid", "1001", "gid", "2002", "gidRangeStart", "100",
        "gidRangeEnd", "200", "basePath", "/dynamic/", "subPathPattern", "${.PVC.namespace}/${.PVC.name}",
        "ensureUniqueDirectory", "false", "reuseAccessPoint", "TRUE", "az", "us-east-1b",
        "enforceZoneAffinity", "true", "enableTagging", "false", "csi.storage.k8s.io/pvc/name", "data",
        "csi.storage.k8s.io/pvc/namespace", "team", "csi.storage.k8s.io/pv/name", "pvc-9"), Map.of());

    assertThat(p.uid()).isEqualTo(1001);
    assertThat(p.gid()).isEqualTo(2002);
    assertThat(p.needsAllocation()).isFalse();
    assertThat(p.gidRange()).isEqualTo(new GidRange(100, 200));
    assertThat(p.basePath()).isEqualTo("/dynamic");
    assertThat(p.reuseAccessPoint()).isTrue();
    assertThat(p.az()).isEqualTo("us-east-1b");
    assertThat(p.enforceZoneAffinity()).isTrue();
    assertThat(p.enableTagging()).isFalse();
    assertThat(p.volumePath("pvc-9")).isEqualTo("/dynamic/team/data");
  }

  @Test
  void uniqueDirectorySuffixIsStableForOneVolumeAndDiffersBetweenVolumes() {
    EfsVolumeParameters p = EfsVolumeParameters.parse(ap("subPathPattern", "${.PVC.name}",
        "csi.storage.k8s.io/pvc/name", "data"), Map.of());

    String first = p.volumePath("pvc-1");
    assertThat(first).matches("/data-[0-9a-f-]{36}");
    assertThat(p.volumePath("pvc-1")).isEqualTo(first);
    assertThat(p.volumePath("pvc-2")).isNotEqualTo(first);
  }

  @Test
  void pvNameFallsBackToTheVolumeName() {
    EfsVolumeParameters p = EfsVolumeParameters.parse(ap("subPathPattern", "x-${.PV.name}",
        "ensureUniqueDirectory", "false"), Map.of());

    assertThat(p.volumePath("pvc-7")).isEqualTo("/x-pvc-7");
  }

  @Test
  void aLongVolumeNameIsShortenedToFitAnAccessPointRootAndStaysUnique() {
    EfsVolumeParameters p = EfsVolumeParameters.parse(ap("basePath", "/dynamic"), Map.of());
    String longName = "sanity-maxlen-" + "a".repeat(114);

    String path = p.volumePath(longName);

    assertThat(path).hasSize(100).startsWith("/dynamic/sanity-maxlen-aaa").matches(".*-[0-9a-f]{16}");
    assertThat(p.volumePath(longName)).isEqualTo(path);
    assertThat(p.volumePath(longName.substring(0, 127) + "b")).isNotEqualTo(path);
  }

  @Test
  void efsDirDefaultsItsModeAndTakesNoAccessPointOptions() {
    EfsVolumeParameters p = EfsVolumeParameters.parse(Map.of("provisioningMode", "efs-dir", "fileSystemId", FS),
        Map.of());

    assertThat(p.mode()).isEqualTo(ProvisioningMode.DIRECTORY);
    assertThat(p.directoryPerms()).isEqualTo("0777");
  }

  static Stream<Arguments> invalidParameters() {
    return Stream.of(
        Arguments.of(ap("provisioningMode", null), "missing provisioningMode"),
        Arguments.of(ap("provisioningMode", "efs-fs"), "provisioningMode \"efs-fs\""),
        Arguments.of(ap("provisioningMode", "s3files-ap"), "provisioningMode \"s3files-ap\""),
        Arguments.of(ap("fileSystemId", null), "missing fileSystemId"),
        Arguments.of(ap("fileSystemId", " "), "missing fileSystemId"),
        Arguments.of(ap("fileSystemId", "fs-xyz"), "fileSystemId \"fs-xyz\""),
        Arguments.of(ap("fileSystemIdConfigRef", "ns/cm/key"), "fileSystemIdConfigRef"),
        Arguments.of(ap("directoryPerms", null), "directoryPerms is required"),
        Arguments.of(ap("directoryPerms", "rwx"), "directoryPerms \"rwx\""),
        Arguments.of(ap("directoryPerms", "0789"), "directoryPerms \"0789\""),
        Arguments.of(ap("uid", "-1"), "uid \"-1\""),
        Arguments.of(ap("uid", "abc"), "uid \"abc\""),
        Arguments.of(ap("gid", "4294967296"), "gid \"4294967296\""),
        Arguments.of(ap("gidRangeStart", "100"), "missing gidRangeEnd"),
        Arguments.of(ap("gidRangeEnd", "100"), "missing gidRangeStart"),
        Arguments.of(ap("gidRangeStart", "0", "gidRangeEnd", "10"), "gidRangeStart must be greater than 0"),
        Arguments.of(ap("gidRangeStart", "10", "gidRangeEnd", "10"), "gidRangeEnd (10) must be greater"),
        Arguments.of(ap("gidRangeStart", "x", "gidRangeEnd", "10"), "gidRangeStart \"x\""),
        Arguments.of(ap("basePath", "/a/../b"), "basePath \"/a/../b\""),
        Arguments.of(ap("basePath", "/a\0b"), "basePath \"/a\\u0000b\" contains a NUL byte"),
        Arguments.of(ap("basePath", "/a\nb"), "basePath \"/a\\nb\" contains the control character U+000A"),
        Arguments.of(ap("basePath", "/.efs-csi-volumes"), "reserved for the driver's own records"),
        Arguments.of(ap("basePath", "/data/.efs-csi-x"), "reserved for the driver's own records"),
        Arguments.of(ap("basePath", "/" + "b".repeat(256)), "directory name of 256 bytes"),
        Arguments.of(ap("basePath", ("/" + "c".repeat(200)).repeat(21)), "a path has at most 4095"),
        Arguments.of(ap("csi.storage.k8s.io/pvc/name", "a/b"), "csi.storage.k8s.io/pvc/name \"a/b\" contains \"/\""),
        Arguments.of(ap("csi.storage.k8s.io/pvc/name", ".."), "csi.storage.k8s.io/pvc/name \"..\" is \"..\""),
        Arguments.of(ap("csi.storage.k8s.io/pvc/name", "x\0"),
            "csi.storage.k8s.io/pvc/name \"x\\u0000\" contains a NUL"),
        Arguments.of(ap("csi.storage.k8s.io/pvc/name", "p".repeat(300)), "is 300 bytes long"),
        Arguments.of(ap("csi.storage.k8s.io/pvc/namespace", "."), "csi.storage.k8s.io/pvc/namespace \".\" is"),
        Arguments.of(ap("csi.storage.k8s.io/pvc/namespace", "a\u0085b"), "control character U+0085"),
        Arguments.of(ap("csi.storage.k8s.io/pv/name", ".efs-csi-volumes"), "csi.storage.k8s.io/pv/name"),
        Arguments.of(ap("subPathPattern", "${.PVC.name}\r"), "subPathPattern \"${.PVC.name}\\r\" contains"),
        Arguments.of(ap("subPathPattern", "${.PVC.uid}"), "${.PVC.uid}"),
        Arguments.of(ap("subPathPattern", "${.PVC.name"), "unterminated"),
        Arguments.of(ap("reuseAccessPoint", "yes"), "Invalid value for reuseAccessPoint parameter: \"yes\""),
        Arguments.of(ap("reuseAccessPoint", "true"), "needs the PVC name"),
        Arguments.of(ap("enforceZoneAffinity", "on"), "Invalid value for enforceZoneAffinity parameter"),
        Arguments.of(ap("enableTagging", "no"), "Invalid value for enableTagging parameter"),
        Arguments.of(Map.of("provisioningMode", "efs-dir", "fileSystemId", FS, "reuseAccessPoint", "true",
            "csi.storage.k8s.io/pvc/name", "x"), "reuseAccessPoint needs provisioningMode efs-ap"),
        Arguments.of(Map.of("provisioningMode", "efs-dir", "fileSystemId", FS, "gidRangeStart", "1",
            "gidRangeEnd", "9"), "need provisioningMode efs-ap"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("invalidParameters")
  void refusesInvalidParametersNamingThem(Map<String, String> parameters, String message) {
    assertThatThrownBy(() -> EfsVolumeParameters.parse(parameters, Map.of()))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isEqualTo(new DriverError.InvalidArgument("parameters", e.getMessage())))
        .hasMessageContaining(message);
  }

  private static Map<String, String> dir(String... extra) {
    Map<String, String> p = ap(extra);
    p.put("provisioningMode", "efs-dir");
    return p;
  }

  /** Each row: parameters, volume name, the field named, what the message says. */
  static Stream<Arguments> namesThatAreNotOneDirectory() {
    String pattern = "${.PVC.namespace}/${.PVC.name}";
    return Stream.of(
        Arguments.of(dir(), "outer/inner", "name", "contains \"/\""),
        Arguments.of(ap(), "apouter/apinner", "name", "contains \"/\""),
        Arguments.of(dir(), "..", "name", "is \"..\""),
        Arguments.of(ap(), ".", "name", "is \".\""),
        Arguments.of(dir(), ".efs-csi-volumes", "name", "reserved for the driver's own records"),
        Arguments.of(ap(), ".efs-csi-volumes", "name", "reserved for the driver's own records"),
        Arguments.of(dir("basePath", "/base"), ".efs-csi-anything", "name", "reserved"),
        Arguments.of(dir(), "n".repeat(300), "name", "is 300 bytes long"),
        Arguments.of(dir(), "é".repeat(128), "name", "is 256 bytes long"),
        Arguments.of(dir(), "a\u0000b", "name", "contains a NUL byte"),
        Arguments.of(dir("subPathPattern", "${.PV.name}"), "pv/x", "name", "contains \"/\""),
        Arguments.of(dir("subPathPattern", ".efs-csi-v/${.PVC.name}", "csi.storage.k8s.io/pvc/name", "data"),
            "pvc-1", "parameters", "reserved"),
        Arguments.of(dir("subPathPattern", pattern + "-${.PVC.name}", "csi.storage.k8s.io/pvc/name", "p".repeat(200),
            "csi.storage.k8s.io/pvc/namespace", "ns"), "pvc-1", "parameters", "bytes; at most 255"));
  }

  @ParameterizedTest(name = "{1} -> {2}: {3}")
  @MethodSource("namesThatAreNotOneDirectory")
  void refusesNamesThatWouldNotBeOneDirectoryNamingTheField(Map<String, String> parameters, String volume,
      String field, String message) {
    EfsVolumeParameters p = EfsVolumeParameters.parse(parameters, Map.of());

    assertThatThrownBy(() -> p.volumePath(volume))
        .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.error())
            .isInstanceOfSatisfying(DriverError.InvalidArgument.class, i -> assertThat(i.field()).isEqualTo(field)))
        .hasMessageContaining(message);
  }

  @Test
  void longAccessPointNamesAreStillShortenedNotRefused() {
    EfsVolumeParameters p = EfsVolumeParameters.parse(ap(), Map.of());

    assertThat(p.volumePath("n".repeat(300))).hasSize(100);
  }

  /**
   * Whatever names the provisioner passes, the volumes of one StorageClass have the depth the pattern's text gives
   * them, so none can be an ancestor of another; the operator's own "/" in the pattern is kept.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("patterns")
  void volumesOfOneClassNeverNest(String pattern, int depth) {
    List<String> paths = new ArrayList<>();
    String[] names = {"a", "b", "a.b", "a-b", "ab", "x.y.z", "..a", "a..", "...", "-", "_"};
    for (String namespace : names) {
      for (String name : names) {
        EfsVolumeParameters p = EfsVolumeParameters.parse(dir("basePath", "/dyn", "subPathPattern", pattern,
            "ensureUniqueDirectory", "false", "csi.storage.k8s.io/pvc/name", name,
            "csi.storage.k8s.io/pvc/namespace", namespace), Map.of());
        paths.add(p.volumePath("pvc-" + namespace + "-" + name));
      }
    }
    for (String path : paths) {
      assertThat(path.split("/")).as(path).hasSize(depth + 1);
      for (String other : paths) {
        assertThat(EfsPaths.isStrictlyBelow(path, other)).as(path + " inside " + other).isFalse();
      }
    }
  }

  static Stream<Arguments> patterns() {
    return Stream.of(Arguments.of("${.PVC.namespace}/${.PVC.name}", 3), Arguments.of("${.PVC.name}", 2),
        Arguments.of("${.PVC.namespace}${.PVC.name}", 2), Arguments.of("x/./${.PVC.namespace}//${.PVC.name}/y", 5),
        Arguments.of("${.PVC.namespace}.${.PVC.name}", 2));
  }

  @Test
  void existingHandlesOfRefusedNamesStillParse() {
    // Volumes made before names were confined keep their ids; DeleteVolume and publish take them as they are.
    assertThat(io.awscsi.efs.volume.VolumeHandle.parse("efs:fs-0123abcd:/outer/inner").path())
        .isEqualTo("/outer/inner");
  }

  @Test
  void taggingOffContradictsTheTagsFlag() {
    assertThatThrownBy(() -> EfsVolumeParameters.parse(ap("enableTagging", "false"), Map.of("team", "a")))
        .isInstanceOf(DriverException.class).hasMessageContaining("--tags");
  }

  static Stream<Arguments> invalidDirectories() {
    return Stream.of(
        Arguments.of(ap("subPathPattern", "${.PVC.name}"), "pvc-1", "--extra-create-metadata"),
        Arguments.of(ap("subPathPattern", "${.PVC.namespace}", "csi.storage.k8s.io/pvc/name", "x"), "pvc-1",
            "csi.storage.k8s.io/pvc/namespace"),
        Arguments.of(ap("subPathPattern", "/", "ensureUniqueDirectory", "false"), "pvc-1", "resolves to no directory"),
        Arguments.of(ap("subPathPattern", "./.", "ensureUniqueDirectory", "false"), "pvc-1",
            "resolves to no directory"),
        Arguments.of(ap("subPathPattern", "../${.PVC.name}", "csi.storage.k8s.io/pvc/name", "x"), "pvc-1",
            "contains \"..\""),
        Arguments.of(ap("basePath", "/a/b/c/d/e"), "pvc-1", "too long"),
        Arguments.of(ap("basePath", "/" + "x".repeat(95)), "pvc-1", "too long"));
  }

  @ParameterizedTest(name = "{2}")
  @MethodSource("invalidDirectories")
  void refusesDirectoriesThatAreUnsafeOrTooLong(Map<String, String> parameters, String volume, String message) {
    EfsVolumeParameters p = EfsVolumeParameters.parse(parameters, Map.of());

    assertThatThrownBy(() -> p.volumePath(volume))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.InvalidArgument.class))
        .hasMessageContaining(message);
  }
}
