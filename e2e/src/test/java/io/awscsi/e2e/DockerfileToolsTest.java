package io.awscsi.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.host.HostTool;
import io.awscsi.e2e.image.ImageArchive;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every executable the driver may run (HostTool) must be in both images. The Dockerfile's runtime stage installs its
 * Debian package from hack/image/runtime-packages.txt, the one list the local image build installs too, and
 * amazon-efs-utils is built from source in a stage of its own and installed from there. The local image (when built,
 * see {@link LocalImage}) has each tool on its PATH from that package, but for the differences LocalImage states.
 */
class DockerfileToolsTest {

  private static final String EFS_UTILS = "amazon-efs-utils";
  private static final String PACKAGE_LIST = "hack/image/runtime-packages.txt";
  private static final String LIST_COPY = "COPY " + PACKAGE_LIST + " /tmp/runtime-packages.txt";

  @ParameterizedTest(name = "{0}")
  @EnumSource(HostTool.class)
  void theRuntimeStageInstallsThePackageOfEveryHostTool(HostTool tool) {
    DockerfileStages dockerfile = DockerfileStages.parse(Repository.read("Dockerfile"));

    assertThat(missing(tool, dockerfile, Repository::read)).isEmpty();
  }

  @Test
  void theRuntimeStageInstallsThePackagesOfTheOneList() {
    DockerfileStages.Stage runtime = DockerfileStages.parse(Repository.read("Dockerfile")).runtime();

    assertThat(runtime.aptPackageLists()).containsExactly(PACKAGE_LIST);
    assertThat(runtime.aptPackages(Repository::read)).contains("e2fsprogs", "xfsprogs", "nvme-cli");
  }

  /** A Dockerfile and the package list as they would read with one thing taken out. */
  record Change(String dockerfile, String packageList) {
    Function<String, String> files() {
      return path -> path.equals(PACKAGE_LIST) ? packageList : Repository.read(path);
    }
  }

  static Stream<Arguments> packagesTakenOut() {
    String dockerfile = Repository.read("Dockerfile");
    String list = Repository.read(PACKAGE_LIST);
    List<Arguments> cases = new ArrayList<>();
    for (HostTool tool : HostTool.values()) {
      if (tool.imagePackage().equals(EFS_UTILS)) {
        cases.add(Arguments.of(tool, "deb not installed",
            new Change(dockerfile.replace("/tmp/amazon-efs-utils.deb \\", "\\"), list)));
        cases.add(Arguments.of(tool, "not built from source",
            new Change(dockerfile.replace("./build-deb.sh", "true"), list)));
        cases.add(Arguments.of(tool, "deb not copied from its stage",
            new Change(dockerfile.replaceAll("(?m)^COPY --from=efs-utils .*$", ""), list)));
      } else {
        String without = list.replaceAll("(?m)^" + Pattern.quote(tool.imagePackage()) + "(\\s*#.*)?$", "");
        cases.add(Arguments.of(tool, tool.imagePackage() + " removed from the list", new Change(dockerfile, without)));
        cases.add(Arguments.of(tool, "the list not copied into the runtime stage",
            new Change(dockerfile.replace(LIST_COPY, ""), list)));
        cases.add(Arguments.of(tool, "the list not fed to apt-get",
            new Change(dockerfile.replace("| xargs apt-get install", "| xargs echo"), list)));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("packagesTakenOut")
  void noticesWhenThePackageOfAToolIsTakenOut(HostTool tool, String change, Change changed) {
    assertThat(changed).isNotEqualTo(new Change(Repository.read("Dockerfile"), Repository.read(PACKAGE_LIST)));

    assertThat(missing(tool, DockerfileStages.parse(changed.dockerfile()), changed.files())).isPresent();
  }

  @Test
  void countsOnlyTheLastStageAndReadsContinuedLines() {
    DockerfileStages dockerfile = DockerfileStages.parse("""
        FROM debian:bookworm AS build
        RUN apt-get update && apt-get install -y nvme-cli
        FROM debian:bookworm-slim
        # a comment naming xfsprogs
        COPY packages.txt /tmp/packages.txt
        RUN apt-get update \\
         && apt-get install -y --no-install-recommends \\
        # a comment between continued lines
              e2fsprogs \\
              mount \\
         && sed -e 's/#.*//' /tmp/packages.txt | xargs apt-get install -y \\
         && rm -rf /var/lib/apt/lists/* /tmp/packages.txt
        """);

    assertThat(dockerfile.stages()).hasSize(2);
    assertThat(dockerfile.runtime().aptPackages()).containsExactly("e2fsprogs", "mount");
    assertThat(dockerfile.runtime().aptPackageLists()).containsExactly("packages.txt");
    assertThat(dockerfile.runtime().aptPackages(path -> "# tools\nutil-linux\n\ncoreutils # stat\n"))
        .containsExactly("e2fsprogs", "mount", "util-linux", "coreutils");
    assertThat(missing(HostTool.NVME, dockerfile, path -> "")).isPresent();
  }

  static Stream<Arguments> toolsOfEachImage() {
    List<Arguments> cases = new ArrayList<>();
    String list = Repository.read(PACKAGE_LIST);
    for (String driver : LocalImage.DRIVERS) {
      List<String> packages = LocalImage.driverPackages(driver, list);
      for (HostTool tool : HostTool.values()) {
        if (packages.contains(tool.imagePackage()) || LocalImage.difference(driver, tool.imagePackage()).isPresent()) {
          cases.add(Arguments.of(driver, tool));
        }
      }
    }
    return cases.stream();
  }

  /**
   * Each driver's local image has every tool of its packages (and the stated differences, amazon-efs-utils for EFS)
   * on its PATH, installed by the package HostTool names; the stated ones lack. The tools of the other driver's
   * packages are not there.
   */
  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("toolsOfEachImage")
  void theLocalImageHasEveryHostToolOfItsDriverFromItsPackage(String driver, HostTool tool) {
    ImageArchive image = LocalImage.image(driver);
    Optional<String> found = image.which(tool.executable());
    Optional<LocalImage.Difference> stated = LocalImage.difference(driver, tool.imagePackage());
    if (stated.isPresent()) {
      assertThat(found).as("%s is in the local image now: take the difference out of LocalImage.DIFFERENCES",
          tool.executable()).isEmpty();
      assertThat(stated.get().executables()).contains(tool.executable());
      return;
    }
    assertThat(found).as("%s on the local image's PATH %s", tool.executable(), image.config().env().get("PATH"))
        .isPresent();
    assertThat(LocalImage.owningPackage(image, found.get())).as("the package that installed %s", found.get())
        .contains(tool.imagePackage());
  }

  /** Every HostTool is in one driver's packages at least (or is amazon-efs-utils', which the EFS image gets). */
  @ParameterizedTest(name = "{0}")
  @EnumSource(HostTool.class)
  void everyHostToolIsInTheImageOfADriver(HostTool tool) {
    String list = Repository.read(PACKAGE_LIST);
    assertThat(LocalImage.DRIVERS.stream().anyMatch(d -> LocalImage.driverPackages(d, list).contains(tool.imagePackage())
        || tool.imagePackage().equals(EFS_UTILS))).isTrue();
  }

  /** Why the Dockerfile's image would lack the tool, or empty when the Dockerfile installs it. */
  static Optional<String> missing(HostTool tool, DockerfileStages dockerfile, Function<String, String> files) {
    DockerfileStages.Stage runtime = dockerfile.runtime();
    if (!tool.imagePackage().equals(EFS_UTILS)) {
      return runtime.aptPackages(files).contains(tool.imagePackage())
          ? Optional.empty()
          : Optional.of(tool.executable() + ": the runtime stage does not apt-get install " + tool.imagePackage()
              + " (directly or from " + PACKAGE_LIST + ")");
    }
    Optional<String> deb = runtime.installedDebFiles().stream().filter(file -> file.contains(EFS_UTILS)).findFirst();
    if (deb.isEmpty()) {
      return Optional.of(tool.executable() + ": the runtime stage installs no " + EFS_UTILS + " .deb");
    }
    Optional<DockerfileStages.Stage> builder = runtime.stageThatProvided(deb.get()).flatMap(dockerfile::stage);
    if (builder.isEmpty()) {
      return Optional.of(tool.executable() + ": " + deb.get() + " is not copied from a stage of this Dockerfile");
    }
    if (!builder.get().runsCommand("git", "clone") || !builder.get().runsCommand("./build-deb.sh")) {
      return Optional.of(tool.executable() + ": stage " + builder.get().name()
          + " does not build amazon-efs-utils from source (git clone, ./build-deb.sh)");
    }
    return Optional.empty();
  }
}
