package io.awscsi.e2e.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.e2e.local.LoopDeviceList;
import io.awscsi.e2e.local.Tools;
import io.awscsi.launcher.DriverOptions.Driver;
import io.awscsi.local.LocalRuntime;
import io.awscsi.local.LifecycleStep;
import io.awscsi.local.LifecycleWalkthrough;
import io.awscsi.local.LocalAws;
import io.awscsi.realism.RealismProfile;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The local lifecycle walkthrough against LocalStack instead of moto: LocalStack in a container (Testcontainers),
 * the realism layer and IMDS emulator in front of it ({@link LocalAws#attach}), the drivers reading
 * {@code AWS_ENDPOINT_URL} as they would for any emulator. EFS is in LocalStack's paid image, so the image defaults to
 * {@code localstack/localstack-pro} ({@code LOCALSTACK_IMAGE} overrides it). Skipped with the reason where no Docker
 * engine runs or no {@code LOCALSTACK_AUTH_TOKEN} is set.
 */
@Tag("integration")
@ExtendWith(LocalStackAvailable.class)
class LocalStackLifecycleTest {

  private static final String DEFAULT_IMAGE = "localstack/localstack-pro:latest";

  @Test
  void ebsAndEfsVolumesLiveTheirWholeLifeAgainstLocalStack() throws Exception {
    Map<String, String> env = System.getenv();
    DockerImageName image = DockerImageName.parse(env.getOrDefault("LOCALSTACK_IMAGE", DEFAULT_IMAGE))
        .asCompatibleSubstituteFor("localstack/localstack");
    Path work = Files.createTempDirectory(Path.of("/tmp"), "localstack-");
    List<String> loopsBefore = LoopDeviceList.backedBy(work);
    try (LocalStackContainer localStack = new LocalStackContainer(image).withServices("ec2", "efs", "sts")
        .withEnv(LocalStackAvailable.TOKEN, env.get(LocalStackAvailable.TOKEN))) {
      localStack.start();
      Map<String, String> driverEnv = new HashMap<>(env);
      // LocalStack accepts any keys; give the drivers its own so nothing depends on the loopback dummy-key rule.
      driverEnv.put("AWS_ACCESS_KEY_ID", localStack.getAccessKey());
      driverEnv.put("AWS_SECRET_ACCESS_KEY", localStack.getSecretKey());
      LocalAws aws = LocalAws.attach(localStack.getEndpoint(), RealismProfile.fast());
      try (LocalRuntime local = LocalRuntime.start(work.resolve("rt"), Set.of(Driver.EBS, Driver.EFS), aws,
          driverEnv)) {
        LifecycleWalkthrough walk = new LifecycleWalkthrough(local.aws(), work.resolve("rt"),
            new PrintStream(System.out, true, StandardCharsets.UTF_8));
        walk.runEbs(local.endpoint(Driver.EBS));
        walk.runEfs(local.endpoint(Driver.EFS));
        walk.printSummary();
        List<LifecycleStep> steps = walk.steps();
        assertThat(steps).isNotEmpty();
        assertThat(steps).allSatisfy(s -> assertThat(s.ok()).as(s.name() + ": " + s.detail()).isTrue());
        assertThat(steps).extracting(LifecycleStep::rpc).contains("CreateVolume", "ControllerPublishVolume",
            "NodeStageVolume", "ControllerExpandVolume", "CreateSnapshot", "DeleteVolume");
      }
    } finally {
      assertThat(LoopDeviceList.backedBy(work)).as("loop devices left behind").isEqualTo(loopsBefore);
      Tools.deleteTreeIfUnmounted(work);
    }
  }
}
