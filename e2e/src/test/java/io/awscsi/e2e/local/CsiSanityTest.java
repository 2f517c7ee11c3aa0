package io.awscsi.e2e.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.launcher.DriverOptions.Driver;
import io.awscsi.local.LocalRuntime;
import io.awscsi.realism.RealismProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * csi-sanity v5.5.0 against the real driver process over its socket, in {@code all} mode, with emulated AWS (moto
 * behind the realism layer), real loop devices and real directories for staging and target paths.
 */
@Tag("integration")
class CsiSanityTest {

  @Test
  void ebsPassesCsiSanity() throws Exception {
    CsiSanityRun.Result r = run(Driver.EBS);
    assertThat(r.failed()).as(r.summary()).isZero();
    assertThat(r.exitCode()).as(r.summary()).isZero();
    assertThat(r.passed()).as(r.summary()).isGreaterThan(40);
  }

  @Test
  void efsPassesCsiSanity() throws Exception {
    CsiSanityRun.Result r = run(Driver.EFS);
    assertThat(r.failed()).as(r.summary()).isZero();
    assertThat(r.exitCode()).as(r.summary()).isZero();
    assertThat(r.passed()).as(r.summary()).isGreaterThan(10);
  }

  private static CsiSanityRun.Result run(Driver driver) throws Exception {
    String label = driver.name().toLowerCase();
    Path work = Files.createTempDirectory(Path.of("/tmp"), "sanity-" + label + "-");
    try (LocalRuntime local = LocalRuntime.start(work.resolve("rt"), work, Set.of(driver), RealismProfile.fast(),
        System.getenv())) {
      return driver == Driver.EBS
          ? CsiSanityRun.run(local, driver, work, CsiSanityRun.EBS_PARAMETERS, CsiSanityRun.EBS_MUTABLE_PARAMETERS,
              label)
          : CsiSanityRun.run(local, driver, work, Map.of("provisioningMode", "efs-ap", "fileSystemId",
              local.aws().fileSystemId(), "directoryPerms", "700"), null, label);
    } finally {
      Tools.deleteTreeIfUnmounted(work);
    }
  }
}
