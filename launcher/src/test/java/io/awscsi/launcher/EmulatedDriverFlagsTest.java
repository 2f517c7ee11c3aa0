package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The serving driver has no loop devices or local directories: given a flag of the emulated driver, whatever its
 * value, it stops with one line naming the emulated entry point, before anything is opened.
 */
class EmulatedDriverFlagsTest {

  @Test
  void eachEmulatedDriverFlagIsRefusedNamingTheEmulatedEntryPoint() {
    assertThat(DriverOptions.EMULATED_DRIVER_FLAGS).hasSize(4);
    for (String flag : DriverOptions.EMULATED_DRIVER_FLAGS) {
      for (String[] args : new String[][] {{"--" + flag, "x"}, {"--" + flag + "=x"},
          {"--driver", "efs", "--mode", "node", "--" + flag, "/tmp/x"}}) {
        assertThatThrownBy(() -> DriverOptions.parse(args, Map.of())).as(String.join(" ", args))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("--" + flag + " is a flag of the emulated driver")
            .hasMessageContaining("aws-csi-driver emulated");
      }
    }
  }

  @Test
  void theProductionValuesAreRefusedToo() {
    // nvme and efs-utils are what the serving driver does anyway; the flags themselves are gone from it
    assertThatThrownBy(() -> DriverOptions.parse(new String[] {"--device-backend=nvme"}, Map.of()))
        .hasMessageContaining("aws-csi-driver emulated");
    assertThatThrownBy(() -> DriverOptions.parse(new String[] {"--efs-mount-backend", "efs-utils"}, Map.of()))
        .hasMessageContaining("aws-csi-driver emulated");
  }

  @Test
  void serveExitsTwoWithTheLineAndTheApplicationJarPointsEmulatedAtTheLauncherScript() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int serve = Main.run(new String[] {"--driver", "ebs", "--device-backend", "loop", "--endpoint",
        "unix:///nonexistent/dir/csi.sock"}, Map.of(), new PrintStream(out), new PrintStream(err));
    assertThat(serve).isEqualTo(Main.EXIT_USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("aws-csi-driver: --device-backend is a flag of the emulated driver");

    err.reset();
    int emulated = Main.run(new String[] {"emulated", "--device-backend", "loop"}, Map.of(), new PrintStream(out),
        new PrintStream(err));
    assertThat(emulated).isEqualTo(Main.EXIT_USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("bin/aws-csi-driver emulated");
  }

  @Test
  void otherFlagsStillParse() {
    assertThat(DriverOptions.parse(new String[] {"--driver", "efs", "--efs-work-dir", "/tmp/pv"}, Map.of())
        .efs().workDir().toString()).isEqualTo("/tmp/pv");
  }
}
