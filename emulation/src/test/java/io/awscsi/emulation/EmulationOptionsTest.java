package io.awscsi.emulation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.launcher.DriverOptions;
import io.awscsi.launcher.DriverSeams;
import io.awscsi.emulation.ebs.LoopDeviceBackend;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The emulated driver's flags are taken out of its command line; the rest is the serving driver's. */
class EmulationOptionsTest {

  @Test
  void theEmulationFlagsAreTakenOutInBothFormsAndTheRestKeptInOrder() {
    EmulationOptions.Split split = EmulationOptions.split(new String[] {"--driver", "ebs", "--device-backend", "loop",
        "--loop-state-dir=/tmp/loops", "--mode", "node", "--efs-mount-backend=local", "--efs-local-root", "/tmp/efs"});
    assertThat(split.rest()).containsExactly("--driver", "ebs", "--mode", "node");
    assertThat(split.options()).isEqualTo(EmulationOptions.both(Path.of("/tmp/loops"), Path.of("/tmp/efs")));
    // what is left parses as the serving driver's flags
    assertThat(DriverOptions.parse(split.rest(), Map.of()).mode()).isEqualTo(DriverOptions.Mode.NODE);
  }

  @Test
  void withoutTheBackendFlagsTheDirectoriesAloneEmulateNothing() {
    EmulationOptions.Split split = EmulationOptions.split(new String[] {"--loop-state-dir", "/tmp/l",
        "--efs-local-root", "/tmp/e", "--device-backend", "nvme", "--efs-mount-backend", "efs-utils"});
    assertThat(split.rest()).isEmpty();
    assertThat(split.options()).isEqualTo(new EmulationOptions(Optional.empty(), Optional.empty()));
    DriverOptions efs = DriverOptions.parse(new String[] {"--driver", "efs"}, Map.of());
    assertThat(split.options().opener(LoopDeviceBackend.Retention.THROW_AWAY).open(efs)).isSameAs(DriverSeams.NONE);
  }

  @Test
  void theDefaultDirectoriesAreThoseTheFlagsOnceHad() {
    EmulationOptions options = EmulationOptions.split(new String[] {"--device-backend=loop",
        "--efs-mount-backend=local"}).options();
    assertThat(options.loopStateDir()).contains(Path.of("/var/lib/aws-csi-driver/loop"));
    assertThat(options.efsLocalRoot()).contains(Path.of("/var/lib/aws-csi-driver/efs-local"));
  }

  @Test
  void anEfsDriverWithTheLocalBackendMountsLocalDirectories() {
    DriverOptions efs = DriverOptions.parse(new String[] {"--driver", "efs"}, Map.of());
    try (DriverSeams seams = EmulationOptions.both(Path.of("/tmp/l"), Path.of("/tmp/e"))
        .opener(LoopDeviceBackend.Retention.THROW_AWAY).open(efs)) {
      assertThat(seams.efsMountBackend()).isPresent();
      assertThat(seams.ebsDeviceLocator()).isEmpty();
    }
  }

  @Test
  void badValuesAndAMissingValueAreRefusedWithExitTwo() {
    assertThatThrownBy(() -> EmulationOptions.split(new String[] {"--device-backend", "nbd"}))
        .hasMessage("--device-backend must be nvme|loop, got nbd");
    assertThatThrownBy(() -> EmulationOptions.split(new String[] {"--efs-local-root"}))
        .hasMessage("--efs-local-root needs a value");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = EmulatedDriverMain.run(new String[] {"--efs-mount-backend", "nfs"}, Map.of(),
        new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("aws-csi-driver emulated: --efs-mount-backend must be efs-utils|local, got nfs\n");
  }

  @Test
  void helpListsTheEmulationFlagsAndTheServingOnes() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = EmulatedDriverMain.run(new String[] {"--help"}, Map.of(), new PrintStream(out),
        new PrintStream(new ByteArrayOutputStream()));
    assertThat(code).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("--device-backend nvme|loop", "--efs-local-root DIR",
        "--kubelet-dir DIR");
  }
}
