package io.awscsi.e2e.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.e2e.local.LoopDeviceList;
import io.awscsi.e2e.local.Tools;
import io.awscsi.launcher.DriverOptions.Driver;
import io.awscsi.local.LifecycleStep;
import io.awscsi.local.LifecycleWalkthrough;
import io.awscsi.local.LocalAws;
import io.awscsi.local.LocalRuntime;
import io.awscsi.realism.RealismProfile;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The local lifecycle walkthrough against LocalStack instead of moto: LocalStack as a plain process (or, with a Docker
 * engine and {@code LOCALSTACK_AUTH_TOKEN}, in a container: {@link LocalStackMode}), the realism layer and IMDS
 * emulator in front of it ({@link LocalAws#attach}), the drivers reading {@code AWS_ENDPOINT_URL} as they would for
 * any emulator. The process is LocalStack's community edition, which has no EFS: there the EFS walkthrough stays on
 * moto ({@code LocalLifecycleTest}), and the test says so.
 */
@Tag("integration")
@ExtendWith(LocalStackLane.class)
class LocalStackLifecycleTest {

  private static final Pattern AWS_ID = Pattern.compile("\\b(vol|snap)-[0-9a-f]{8,17}\\b");

  @Test
  void volumesLiveTheirWholeLifeAgainstLocalStack(LocalStackEmulator localStack) throws Exception {
    Path work = Files.createTempDirectory(Path.of("/tmp"), "localstack-");
    List<String> loopsBefore = LoopDeviceList.backedBy(work);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    try {
      System.out.println("LocalStack lane: " + localStack.describe());
      if (!localStack.drivers().contains(Driver.EFS)) {
        System.out.println("LocalStack lane: EFS is not among LocalStack community's services; the EFS walkthrough"
            + " and csi-sanity for EFS run on moto (LocalLifecycleTest, CsiSanityTest)");
      }
      Map<String, String> driverEnv = new HashMap<>(System.getenv());
      driverEnv.putAll(localStack.driverEnvironment());
      Set<String> made = new HashSet<>();
      String instanceId;
      LocalAws aws = LocalAws.attach(localStack.endpoint(), RealismProfile.fast(), localStack.drivers());
      try (LocalRuntime local = LocalRuntime.start(work.resolve("rt"), work.resolve("rt"), localStack.drivers(), aws, driverEnv)) {
        LifecycleWalkthrough walk = new LifecycleWalkthrough(local.aws(), work.resolve("rt"),
            new PrintStream(printed, true, StandardCharsets.UTF_8));
        walk.runEbs(local.endpoint(Driver.EBS));
        if (localStack.drivers().contains(Driver.EFS)) {
          walk.runEfs(local.endpoint(Driver.EFS));
        }
        walk.printSummary();
        List<LifecycleStep> steps = walk.steps();
        assertThat(steps).allSatisfy(s -> assertThat(s.ok()).as(s.name() + ": " + s.detail()).isTrue());
        assertThat(steps).extracting(LifecycleStep::rpc).contains("CreateVolume", "ControllerPublishVolume",
            "NodeStageVolume", "NodePublishVolume", "ControllerExpandVolume", "NodeExpandVolume", "CreateSnapshot",
            "NodeUnpublishVolume", "NodeUnstageVolume", "ControllerUnpublishVolume", "DeleteVolume",
            "DeleteSnapshot");
        assertThat(step(steps, "create a 1 GiB gp3 volume").awsCalls()).containsKey("CreateVolume");
        assertThat(step(steps, "grow the volume to 2 GiB").awsCalls()).containsKey("ModifyVolume");
        assertThat(step(steps, "snapshot the volume").awsCalls()).containsKey("CreateSnapshot");
        assertThat(step(steps, "read the file back from the restored volume").detail()).startsWith("same");
        steps.forEach(step -> AWS_ID.matcher(step.detail()).results().forEach(m -> made.add(m.group())));
        instanceId = aws.instanceId();
      }
      // Everything the walkthrough made is gone from LocalStack itself, asked without the realism layer, in the
      // account and region where this node's instance is (so the question cannot miss them).
      try (var ec2 = LocalAws.ec2(localStack.endpoint())) {
        assertThat(ec2.describeInstances().reservations().stream().flatMap(r -> r.instances().stream())
            .map(i -> i.instanceId())).contains(instanceId);
        assertThat(made).filteredOn(id -> id.startsWith("vol-")).hasSize(2);
        assertThat(made).filteredOn(id -> id.startsWith("snap-")).hasSize(1);
        assertThat(ec2.describeVolumes().volumes()).extracting(v -> v.volumeId()).doesNotContainAnyElementsOf(made);
        assertThat(ec2.describeSnapshots().snapshots()).extracting(v -> v.snapshotId())
            .doesNotContainAnyElementsOf(made);
      }
      assertThat(localStack.refusedOutbound()).as("LocalStack's attempts to leave the machine").isEmpty();
    } finally {
      System.out.print(printed.toString(StandardCharsets.UTF_8));
      assertThat(LoopDeviceList.backedBy(work)).as("loop devices left behind").isEqualTo(loopsBefore);
      Tools.deleteTreeIfUnmounted(work);
    }
  }

  private static LifecycleStep step(List<LifecycleStep> steps, String name) {
    return steps.stream().filter(s -> s.driver().equals("ebs") && s.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no step " + name));
  }
}
