package io.awscsi.e2e.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.e2e.local.CsiSanityRun;
import io.awscsi.e2e.local.Tools;
import io.awscsi.launcher.DriverOptions.Driver;
import io.awscsi.local.LocalAws;
import io.awscsi.local.LocalRuntime;
import io.awscsi.realism.RealismProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * csi-sanity for EBS against LocalStack's EC2 behind the realism layer (as {@code CsiSanityTest} runs it against
 * moto): the same driver process, parameters and expectations. EFS csi-sanity stays on moto where LocalStack runs as
 * its community process (no EFS there).
 */
@Tag("integration")
@ExtendWith(LocalStackLane.class)
class LocalStackCsiSanityTest {

  @Test
  void ebsPassesCsiSanityAgainstLocalStack(LocalStackEmulator localStack) throws Exception {
    Path work = Files.createTempDirectory(Path.of("/tmp"), "sanity-localstack-");
    try {
      System.out.println("LocalStack lane: " + localStack.describe());
      Map<String, String> driverEnv = new HashMap<>(System.getenv());
      driverEnv.putAll(localStack.driverEnvironment());
      LocalAws aws = LocalAws.attach(localStack.endpoint(), RealismProfile.fast(), Set.of(Driver.EBS));
      CsiSanityRun.Result r;
      try (LocalRuntime local = LocalRuntime.start(work.resolve("rt"), work, Set.of(Driver.EBS), aws, driverEnv)) {
        r = CsiSanityRun.run(local, Driver.EBS, work, CsiSanityRun.EBS_PARAMETERS,
            CsiSanityRun.EBS_MUTABLE_PARAMETERS, "ebs-localstack");
      }
      assertThat(r.failed()).as(r.summary()).isZero();
      assertThat(r.exitCode()).as(r.summary()).isZero();
      assertThat(r.passed()).as(r.summary()).isGreaterThan(40);
      assertThat(localStack.refusedOutbound()).as("LocalStack's attempts to leave the machine").isEmpty();
    } finally {
      Tools.deleteTreeIfUnmounted(work);
    }
  }
}
