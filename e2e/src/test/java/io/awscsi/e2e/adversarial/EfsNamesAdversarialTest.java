package io.awscsi.e2e.adversarial;

import static io.awscsi.e2e.adversarial.ControllerSupport.efsVolume;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateVolumeRequest;
import csi.v1.DeleteVolumeRequest;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.awscsi.local.LocalAws;
import io.grpc.Status;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.efs.EfsClient;

/**
 * Issue 24 items 2, 3 and 9 (EFS) over the controller's socket, with --delete-access-point-root-dir so a wrong
 * directory would really be deleted. A name holding "/" used to make efs-dir volume {@code outer/inner} a directory
 * inside volume {@code outer} (deleting outer deleted inner's data) and access point {@code apouter/apinner}'s root
 * a directory inside {@code apouter}'s; the first efs-dir volume named {@code .efs-csi-volumes} became the driver's
 * ledger, handed out mode 777; NUL in basePath or a PVC name and a 300-byte name answered INTERNAL. Now every value
 * is one directory name, refused with INVALID_ARGUMENT naming the field otherwise, no volume's directory lies inside
 * another's, and deleting a volume leaves every other volume's files alone.
 */
@Tag("integration")
class EfsNamesAdversarialTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  private static final String PVC_NAME = "csi.storage.k8s.io/pvc/name";
  private static final String PVC_NAMESPACE = "csi.storage.k8s.io/pvc/namespace";
  private static final String LEDGER = ".efs-csi-volumes";

  private static DriverProcess efs;

  @BeforeAll
  static void start() {
    efs = FX.start(Driver.EFS, DriverFixture.Mode.CONTROLLER, "--delete-access-point-root-dir=true");
  }

  private static Map<String, String> parameters(String mode, String... extra) {
    Map<String, String> p = new HashMap<>(Map.of("provisioningMode", mode, "fileSystemId", FX.aws().fileSystemId(),
        "directoryPerms", "700"));
    for (int i = 0; i < extra.length; i += 2) {
      p.put(extra[i], extra[i + 1]);
    }
    return p;
  }

  private static CreateVolumeRequest request(String name, Map<String, String> parameters) {
    return efsVolume(name).putAllParameters(parameters).build();
  }

  private static String create(String name, Map<String, String> parameters) {
    return CsiAssert.ok(() -> efs.controller().createVolume(request(name, parameters))).getVolume().getVolumeId();
  }

  private static void delete(String volumeId) {
    CsiAssert.ok(() -> efs.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(volumeId)
        .build()));
  }

  /** Where the local stand-in keeps a path of the file system. */
  private static Path onFileSystem(String path) {
    return FX.efsLocalRoot().resolve(FX.aws().fileSystemId() + path);
  }

  /** The directory an efs-dir volume id names. */
  private static Path directoryOf(String volumeId) {
    return onFileSystem(volumeId.substring(volumeId.lastIndexOf(':') + 1));
  }

  /** The root directory of an efs-ap volume's access point, made here as a pod's first write would. */
  private static Path rootOf(String volumeId) throws IOException {
    String accessPointId = volumeId.substring(volumeId.lastIndexOf(':') + 1);
    try (EfsClient client = LocalAws.efs(FX.aws().endpoint())) {
      String root = client.describeAccessPoints(r -> r.accessPointId(accessPointId)).accessPoints().getFirst()
          .rootDirectory().path();
      return Files.createDirectories(onFileSystem(root));
    }
  }

  private static long accessPointsNamed(String token) {
    try (EfsClient client = LocalAws.efs(FX.aws().endpoint())) {
      return client.describeAccessPoints(r -> r.fileSystemId(FX.aws().fileSystemId())).accessPoints().stream()
          .filter(a -> token.equals(a.clientToken())).count();
    }
  }

  /** Each row: a name that is not one directory name, in either mode -> INVALID_ARGUMENT naming "name". */
  static Stream<Arguments> namesThatAreNotOneDirectory() {
    return Stream.of(
        Arguments.of("efs-dir", "outer/inner", "contains \"/\""),
        Arguments.of("efs-ap", "apouter/apinner", "contains \"/\""),
        Arguments.of("efs-dir", "..", "is \"..\""),
        Arguments.of("efs-ap", "..", "is \"..\""),
        Arguments.of("efs-dir", ".", "is \".\""),
        Arguments.of("efs-dir", LEDGER, "reserved"),
        Arguments.of("efs-ap", LEDGER, "reserved"),
        Arguments.of("efs-dir", ".efs-csi-next", "reserved"),
        Arguments.of("efs-dir", "n".repeat(300), "300 bytes"),
        Arguments.of("efs-dir", "a/../../etc", "contains \"/\""));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("namesThatAreNotOneDirectory")
  void aNameThatIsNotOneDirectoryNameIsInvalidArgumentNamingTheField(String mode, String name, String why) {
    Status status = CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "name",
        () -> efs.controller().createVolume(request(name, parameters(mode))));

    assertThat(status.getDescription()).startsWith("name:").contains(why);
    assertThat(accessPointsNamed(name)).isZero();
  }

  /** Each row: a parameter value with NUL, a control character, "/" or over NAME_MAX -> INVALID_ARGUMENT naming it. */
  static Stream<Arguments> parametersThatAreNotDirectories() {
    return Stream.of(
        Arguments.of("basePath", "/base\u0000/x", "NUL"),
        Arguments.of("basePath", "/base\n/x", "U+000A"),
        Arguments.of("basePath", "/" + LEDGER, "reserved"),
        Arguments.of("basePath", "/" + "b".repeat(300), "300 bytes"),
        Arguments.of(PVC_NAME, "data\u0000", "NUL"),
        Arguments.of(PVC_NAME, "team/data", "contains \"/\""),
        Arguments.of(PVC_NAME, "..", "is \"..\""),
        Arguments.of(PVC_NAMESPACE, "ns\u0000", "NUL"),
        Arguments.of(PVC_NAMESPACE, "a".repeat(300), "300 bytes"),
        Arguments.of("subPathPattern", "${.PVC.name}\u0000", "NUL"));
  }

  @ParameterizedTest(name = "{0} {2}")
  @MethodSource("parametersThatAreNotDirectories")
  void aParameterThatIsNotADirectoryIsInvalidArgumentNamingIt(String key, String value, String why) {
    for (String mode : List.of("efs-dir", "efs-ap")) {
      Map<String, String> p = parameters(mode, "subPathPattern", "${.PVC.namespace}-${.PVC.name}", PVC_NAME, "data",
          PVC_NAMESPACE, "team");
      p.put(key, value);
      Status status = CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "parameters",
          () -> efs.controller().createVolume(request("pvc-param-" + mode, p)));
      assertThat(status.getDescription()).contains(key).contains(why).doesNotContain("\u0000").doesNotContain("\n");
    }
  }

  /** The driver's ledger stays the driver's: its mode and records survive every attempt to reach it. */
  @Test
  void theLedgerIsNeverHandedOut() throws IOException {
    String volume = create("pvc-ledger-owner", parameters("efs-dir"));
    Path ledger = onFileSystem("/" + LEDGER);
    String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(ledger));
    List<String> records;
    try (Stream<Path> files = Files.list(ledger)) {
      records = files.map(Path::toString).sorted().toList();
    }

    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "name", () -> efs.controller().createVolume(
        request(LEDGER, parameters("efs-dir"))));
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "parameters", () -> efs.controller().createVolume(
        request("pvc-ledger-2", parameters("efs-dir", "basePath", "/" + LEDGER))));
    CsiAssert.refused(Status.Code.INVALID_ARGUMENT, "parameters", () -> efs.controller().createVolume(
        request("pvc-ledger-3", parameters("efs-dir", "subPathPattern", "${.PVC.name}", PVC_NAME, LEDGER,
            "ensureUniqueDirectory", "false"))));
    delete("efs:" + FX.aws().fileSystemId() + ":/" + LEDGER);

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ledger))).isEqualTo(mode);
    try (Stream<Path> files = Files.list(ledger)) {
      assertThat(files.map(Path::toString).sorted().toList()).isEqualTo(records);
    }
    delete(volume);
  }

  /** A ledger an older version handed to a tenant (1000:1000, mode 777) is the controller's again after a create. */
  @Test
  void aLedgerHandedOutBeforeIsTakenBack() throws IOException {
    String first = create("pvc-reclaim-1", parameters("efs-dir"));
    Path ledger = onFileSystem("/" + LEDGER);
    Object owner = Files.getAttribute(ledger, "unix:uid");
    Files.setAttribute(ledger, "unix:uid", 1000);
    Files.setAttribute(ledger, "unix:gid", 1000);
    Files.setPosixFilePermissions(ledger, PosixFilePermissions.fromString("rwxrwxrwx"));

    String second = create("pvc-reclaim-2", parameters("efs-dir"));

    assertThat(Files.getAttribute(ledger, "unix:uid")).isEqualTo(owner);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ledger))).isEqualTo("rwxr-xr-x");
    delete(first);
    delete(second);
  }

  /**
   * Two StorageClasses whose patterns would nest (one per namespace, one per namespace and PVC): the inner volume is
   * refused, for an efs-dir directory inside another and for any volume inside an access point's root, and nothing
   * is made inside the outer one.
   */
  @Test
  void patternsThatWouldNestAreRefusedWhicheverComesSecond() {
    String outer = create("pvc-ns-outer", parameters("efs-dir", "basePath", "/nest", "subPathPattern",
        "${.PVC.namespace}", "ensureUniqueDirectory", "false", PVC_NAME, "data", PVC_NAMESPACE, "team"));
    assertThat(outer).endsWith(":/nest/team");

    Status inner = CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(
        request("pvc-ns-inner", parameters("efs-dir", "basePath", "/nest", "subPathPattern",
            "${.PVC.namespace}/${.PVC.name}", "ensureUniqueDirectory", "false", PVC_NAME, "data", PVC_NAMESPACE,
            "team"))));
    assertThat(inner.getDescription()).contains("inside /nest/team");
    assertThat(onFileSystem("/nest/team/data")).doesNotExist();

    String apOuter = create("pvc-ap-outer", parameters("efs-ap", "basePath", "/apnest", "subPathPattern",
        "${.PVC.namespace}", "ensureUniqueDirectory", "false", PVC_NAME, "data", PVC_NAMESPACE, "team"));
    for (String mode : List.of("efs-ap", "efs-dir")) {
      CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(
          request("pvc-ap-inner-" + mode, parameters(mode, "basePath", "/apnest/team"))));
    }
    assertThat(onFileSystem("/apnest/team/pvc-ap-inner-efs-dir")).doesNotExist();
    assertThat(accessPointsNamed("pvc-ap-inner-efs-ap")).isZero();
    delete(outer);
    delete(apOuter);
  }

  /** Volumes side by side: write a file in each, delete one, the others' files are all there. */
  @Test
  void deletingOneVolumeNeverTouchesAnothersData() throws IOException {
    String dirA = create("pvc-data-a", parameters("efs-dir", "basePath", "/shared"));
    String dirB = create("pvc-data-b", parameters("efs-dir", "basePath", "/shared"));
    String apA = create("pvc-data-c", parameters("efs-ap", "basePath", "/shared"));
    String apB = create("pvc-data-d", parameters("efs-ap", "basePath", "/shared"));
    Map<String, Path> files = new HashMap<>();
    for (String id : List.of(dirA, dirB)) {
      files.put(id, Files.writeString(directoryOf(id).resolve("data.txt"), id));
    }
    for (String id : List.of(apA, apB)) {
      files.put(id, Files.writeString(rootOf(id).resolve("data.txt"), id));
    }

    delete(dirA);
    delete(apA);

    assertThat(files.get(dirA)).doesNotExist();
    assertThat(files.get(apA)).doesNotExist();
    assertThat(files.get(dirB)).hasContent(dirB);
    assertThat(files.get(apB)).hasContent(apB);
    delete(dirB);
    delete(apB);
    assertThat(onFileSystem("/shared")).isDirectory();
  }

  /** A long efs-ap name is still shortened to fit an access point's root, as before. */
  @Test
  void aLongAccessPointNameIsShortenedNotRefused() {
    String id = create("n".repeat(300), parameters("efs-ap"));
    delete(id);
  }
}
