package io.awscsi.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Dockerfile builds linux/amd64 and linux/arm64 ({@code docker buildx build --platform linux/amd64,linux/arm64}):
 * the jars once on the build machine, everything of the target's machine code on the target platform. Read from the
 * text (no container engine runs here): which stage runs on which platform, what crosses between platforms, where
 * jlink and the AOT training run, and that the distribution is laid out for the target's architecture.
 */
class DockerfilePlatformsTest {

  private static final String BUILD_PLATFORM = "$BUILDPLATFORM";
  /** What the build stage (build platform) hands to target stages: machine-independent, or laid out for TARGETARCH. */
  private static final Set<String> CROSSING_PLATFORMS = Set.of("/src/dist/aws-csi-driver/", "/opt/jre-modules");
  private static final String ASSEMBLE_FOR_TARGET = "hack/assemble-dist.sh --arch \"${TARGETARCH}\"";

  @Test
  void theDockerfileBuildsForEveryPlatform() {
    assertThat(problems(DockerfileStages.parse(Repository.read("Dockerfile")))).isEmpty();
  }

  @Test
  void theJarsAreBuiltOnceOnTheBuildMachineAndTheRestOnTheTarget() {
    DockerfileStages dockerfile = DockerfileStages.parse(Repository.read("Dockerfile"));

    assertThat(dockerfile.stage("build")).get().extracting(DockerfileStages.Stage::platform).isEqualTo(BUILD_PLATFORM);
    assertThat(dockerfile.stage("build").get().runs("make build")).isTrue();
    for (String target : List.of("efs-utils", "jre", "runtime")) {
      assertThat(dockerfile.stage(target)).as(target).get().matches(DockerfileStages.Stage::onTargetPlatform);
    }
    assertThat(dockerfile.runtime().name()).isEqualTo("runtime");
  }

  /** The Dockerfile with one thing changed that would build a wrong image for some platform. */
  static Stream<Arguments> changes() {
    String dockerfile = Repository.read("Dockerfile");
    List<Arguments> cases = new ArrayList<>();
    cases.add(Arguments.of("the build machine's Go in the target's efs-utils stage",
        dockerfile.replace("COPY --from=go /usr/local/go", "COPY --from=build-go /usr/local/go")));
    cases.add(Arguments.of("the target's Go in the build stage",
        dockerfile.replace("FROM --platform=$BUILDPLATFORM golang:", "FROM golang:")));
    cases.add(Arguments.of("jlink in the build stage (the build machine's runtime in every image)",
        dockerfile.replace("COPY --from=jre /opt/aws-csi-driver-jre", "COPY --from=build /opt/aws-csi-driver-jre")));
    cases.add(Arguments.of("the jre stage on the build platform",
        dockerfile.replace("FROM eclipse-temurin:", "FROM --platform=$BUILDPLATFORM eclipse-temurin:")));
    cases.add(Arguments.of("the runtime stage on the build platform (AOT training by the build machine's JVM)",
        dockerfile.replaceFirst("FROM debian:", "FROM --platform=\\$BUILDPLATFORM debian:")));
    cases.add(Arguments.of("no AOT training in the runtime stage",
        dockerfile.replace("&& bash /tmp/aot/build-aot.sh", "&& true")));
    cases.add(Arguments.of("TARGETARCH not declared in the build stage",
        dockerfile.replace("ARG TARGETARCH\n", "")));
    cases.add(Arguments.of("the distribution not laid out for the target",
        dockerfile.replace(ASSEMBLE_FOR_TARGET, "hack/assemble-dist.sh")));
    cases.add(Arguments.of("the jars built per target platform",
        dockerfile.replace("FROM --platform=$BUILDPLATFORM maven:", "FROM maven:")));
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("changes")
  void noticesAChangeThatBuildsAWrongImageForAPlatform(String change, String changed) {
    assertThat(changed).isNotEqualTo(Repository.read("Dockerfile"));

    assertThat(problems(DockerfileStages.parse(changed))).isNotEmpty();
  }

  @Test
  void readsThePlatformOfEachStage() {
    DockerfileStages dockerfile = DockerfileStages.parse("""
        FROM --platform=$BUILDPLATFORM golang:1 AS tools
        FROM --platform=linux/arm64 debian:bookworm AS arm
        FROM debian:bookworm-slim
        COPY --from=tools /usr/local/go /usr/local/go
        """);

    assertThat(dockerfile.stages()).extracting(DockerfileStages.Stage::platform)
        .containsExactly(BUILD_PLATFORM, "linux/arm64", "");
    assertThat(dockerfile.stages()).extracting(DockerfileStages.Stage::baseImage)
        .containsExactly("golang:1", "debian:bookworm", "debian:bookworm-slim");
    assertThat(dockerfile.runtime().onTargetPlatform()).isTrue();
    assertThat(dockerfile.stages().getFirst().onTargetPlatform()).isFalse();
    assertThat(problems(dockerfile)).anySatisfy(p -> assertThat(p).contains("/usr/local/go"));
  }

  /** What would make the image of some platform wrong; empty when every platform gets its own machine code. */
  static List<String> problems(DockerfileStages dockerfile) {
    List<String> problems = new ArrayList<>();
    for (DockerfileStages.Stage stage : dockerfile.stages()) {
      for (Map.Entry<String, List<String>> copy : stage.copiesFromStages().entrySet()) {
        Optional<DockerfileStages.Stage> from = dockerfile.stage(copy.getValue().getFirst());
        if (from.isEmpty()) {
          continue; // an image, not a stage: its platform is the copying stage's
        }
        String source = copy.getValue().get(1);
        if (from.get().onTargetPlatform() != stage.onTargetPlatform()
            && !(from.get().name().equals("build") && CROSSING_PLATFORMS.contains(source))) {
          problems.add("stage " + stage.name() + " (" + platformOf(stage) + ") copies " + source + " from stage "
              + from.get().name() + " (" + platformOf(from.get()) + "): machine code of another platform");
        }
      }
    }
    Optional<DockerfileStages.Stage> build = dockerfile.stage("build");
    if (build.isEmpty() || !build.get().runs("make build")) {
      problems.add("no stage build running make build");
    } else {
      if (build.get().onTargetPlatform()) {
        problems.add("stage build runs on the target platform: the jars would be built once per platform, "
            + "under emulation for a foreign one (FROM --platform=$BUILDPLATFORM)");
      }
      List<String> instructions = build.get().instructions();
      int declared = instructions.indexOf("ARG TARGETARCH");
      int assembled = indexOfRun(instructions, ASSEMBLE_FOR_TARGET);
      if (assembled < 0) {
        problems.add("stage build does not lay out the distribution for the target (" + ASSEMBLE_FOR_TARGET + ")");
      } else if (declared < 0 || declared > assembled) {
        problems.add("stage build reads TARGETARCH without declaring it first (ARG TARGETARCH): it would be empty");
      }
    }
    DockerfileStages.Stage runtime = dockerfile.runtime();
    if (!runtime.onTargetPlatform()) {
      problems.add("the runtime stage runs on " + runtime.platform() + ", not the target platform");
    }
    if (!runtime.runs("build-aot.sh")) {
      problems.add("the runtime stage trains no AOT cache: a cache is only valid for the JVM that made it");
    }
    Optional<String> jre = Optional.ofNullable(runtime.copiesFromStages().get("/opt/aws-csi-driver/jre"))
        .map(List::getFirst);
    Optional<DockerfileStages.Stage> linker = jre.flatMap(dockerfile::stage);
    if (linker.isEmpty() || !linker.get().runs("jlink-runtime.sh")) {
      problems.add("the runtime's /opt/aws-csi-driver/jre comes from no stage running jlink-runtime.sh");
    } else if (!linker.get().onTargetPlatform()) {
      problems.add("stage " + linker.get().name() + " links the runtime on " + linker.get().platform()
          + ": jlink makes a runtime of its own machine only");
    }
    return problems;
  }

  private static String platformOf(DockerfileStages.Stage stage) {
    return stage.onTargetPlatform() ? "target platform" : stage.platform();
  }

  private static int indexOfRun(List<String> instructions, String text) {
    for (int i = 0; i < instructions.size(); i++) {
      if (DockerfileStages.keyword(instructions.get(i)).equals("RUN") && instructions.get(i).contains(text)) {
        return i;
      }
    }
    return -1;
  }
}
