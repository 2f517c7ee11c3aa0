package io.awscsi.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.launcher.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code aws-csi-driver local}'s refusals, before it starts anything. */
class LocalRuntimeFlagsTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return LocalRuntime.run(args, Map.of(), new PrintStream(out), new PrintStream(err));
  }

  @Test
  void anUnknownFlagExitsTwoNamingIt() {
    assertThat(run("--socket-dir", "/tmp/x")).isEqualTo(Main.EXIT_USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown flag --socket-dir");
  }

  @Test
  void anUnknownDriverExitsTwoNamingTheChoicesWithNone() {
    assertThat(run("--driver", "nope", "--exit")).isEqualTo(Main.EXIT_USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--driver must be ebs, efs, both or none");
  }
}
