package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** --help is made from the same flag tables the parsers use, so every listed flag parses and nothing else does. */
class UsageTest {

  @Test
  void everyFlagHelpListsIsAcceptedByItsCommand() {
    for (FlagTable table : List.of(Usage.SERVE, Usage.LOCAL, Usage.CLIENT, Usage.REMOVE_STARTUP_TAINT)) {
      for (FlagTable.Flag flag : table.flags()) {
        String[] args = flag.takesValue() ? new String[] {"--" + flag.name(), "x"} : new String[] {"--" + flag.name()};
        assertThat(table.parse(args).has(flag.name())).as(table.command() + " --" + flag.name()).isTrue();
        assertThat(table.help()).contains("--" + flag.name());
      }
    }
  }

  @Test
  void localListsWorkDirAndRefusesSocketDir() {
    assertThat(Usage.text()).contains("--work-dir DIR").doesNotContain("--socket-dir");
    assertThatThrownBy(() -> Usage.LOCAL.parse(new String[] {"--socket-dir", "/tmp/x"}))
        .hasMessageContaining("unknown flag --socket-dir");
  }

  @Test
  void helpExitsZeroAndLocalFromTheApplicationJarPointsAtTheLauncherScript() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int help = Main.run(new String[] {"--help"}, Map.of(), new PrintStream(out), new PrintStream(err));
    // The local runtime is io.awscsi.local (lib/local), not in this jar; its own flags are tested there.
    int local = Main.run(new String[] {"local", "--socket-dir", "/tmp/x"}, Map.of(), new PrintStream(out),
        new PrintStream(err));

    assertThat(help).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("aws-csi-driver local", "--efs-work-dir DIR",
        "--env-file FILE", "ebs|efs|both|none");
    // the emulated driver's flags are its own (io.awscsi.emulation, lib/local), not the serving driver's
    for (String flag : DriverOptions.EMULATED_DRIVER_FLAGS) {
      assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("--" + flag);
    }
    assertThat(local).isEqualTo(Main.EXIT_USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("bin/aws-csi-driver local");
  }

  @Test
  void versionPrintsTheVersionAndExitsZeroWithoutStarting() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    // --endpoint nowhere: had the driver tried to start, it would have failed.
    int code = Main.run(new String[] {"--version", "--endpoint", "unix:///nonexistent/dir/csi.sock"}, Map.of(),
        new PrintStream(out), new PrintStream(err));

    assertThat(code).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("aws-csi-driver " + BuildInfo.version()
        + System.lineSeparator());
    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
  }
}
