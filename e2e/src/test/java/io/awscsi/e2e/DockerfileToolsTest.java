package io.awscsi.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.host.HostTool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every executable the driver may run (HostTool) must be in the image: the Dockerfile's runtime stage installs its
 * Debian package, and amazon-efs-utils is built from source in a stage of its own and installed from there.
 */
class DockerfileToolsTest {

  private static final String EFS_UTILS = "amazon-efs-utils";

  @ParameterizedTest(name = "{0}")
  @EnumSource(HostTool.class)
  void theRuntimeStageInstallsThePackageOfEveryHostTool(HostTool tool) throws IOException {
    DockerfileStages dockerfile = DockerfileStages.parse(Files.readString(dockerfile()));

    assertThat(missing(tool, dockerfile)).isEmpty();
  }

  static Stream<Arguments> dockerfilesWithAPackageTakenOut() throws IOException {
    String text = Files.readString(dockerfile());
    List<Arguments> cases = new ArrayList<>();
    for (HostTool tool : HostTool.values()) {
      if (tool.imagePackage().equals(EFS_UTILS)) {
        cases.add(Arguments.of(tool, "deb not installed", text.replace("/tmp/amazon-efs-utils.deb \\", "\\")));
        cases.add(Arguments.of(tool, "not built from source", text.replace("./build-deb.sh", "true")));
        cases.add(Arguments.of(tool, "deb not copied from its stage",
            text.replaceAll("(?m)^COPY --from=efs-utils .*$", "")));
      } else {
        String without = text.replaceAll("(?<=\\s)" + Pattern.quote(tool.imagePackage()) + "(?=\\s)", "");
        cases.add(Arguments.of(tool, tool.imagePackage() + " removed", without));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("dockerfilesWithAPackageTakenOut")
  void noticesWhenThePackageOfAToolIsTakenOut(HostTool tool, String change, String text) throws IOException {
    assertThat(text).isNotEqualTo(Files.readString(dockerfile()));

    assertThat(missing(tool, DockerfileStages.parse(text))).isPresent();
  }

  @Test
  void countsOnlyTheLastStageAndReadsContinuedLines() {
    DockerfileStages dockerfile = DockerfileStages.parse("""
        FROM debian:bookworm AS build
        RUN apt-get update && apt-get install -y nvme-cli
        FROM debian:bookworm-slim
        # a comment naming xfsprogs
        RUN apt-get update \\
         && apt-get install -y --no-install-recommends \\
        # a comment between continued lines
              e2fsprogs \\
              mount \\
         && rm -rf /var/lib/apt/lists/*
        """);

    assertThat(dockerfile.stages()).hasSize(2);
    assertThat(dockerfile.runtime().aptPackages()).containsExactly("e2fsprogs", "mount");
    assertThat(missing(HostTool.NVME, dockerfile)).isPresent();
  }

  /** Why the image would lack the tool, or empty when the Dockerfile installs it. */
  static Optional<String> missing(HostTool tool, DockerfileStages dockerfile) {
    DockerfileStages.Stage runtime = dockerfile.runtime();
    if (!tool.imagePackage().equals(EFS_UTILS)) {
      return runtime.aptPackages().contains(tool.imagePackage())
          ? Optional.empty()
          : Optional.of(tool.executable() + ": the runtime stage does not apt-get install " + tool.imagePackage());
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

  /** The repository's Dockerfile, found from the module directory Maven runs the tests in. */
  private static Path dockerfile() {
    for (Path directory = Path.of("").toAbsolutePath(); directory != null; directory = directory.getParent()) {
      Path candidate = directory.resolve("Dockerfile");
      if (Files.isRegularFile(candidate) && Files.isDirectory(directory.resolve("driver-core"))) {
        return candidate;
      }
    }
    throw new IllegalStateException("no Dockerfile next to driver-core/ above " + Path.of("").toAbsolutePath());
  }
}
