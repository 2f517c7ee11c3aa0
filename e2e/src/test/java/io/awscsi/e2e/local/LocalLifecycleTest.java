package io.awscsi.e2e.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.launcher.DriverOptions.Driver;
import io.awscsi.local.LifecycleStep;
import io.awscsi.local.LifecycleWalkthrough;
import io.awscsi.local.LocalRuntime;
import io.awscsi.realism.RealismProfile;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The README's first command's walkthrough, as a test: every step of the EBS and EFS lifecycles succeeds, makes the
 * AWS calls it should, and nothing is left behind (no loop device, mount, or volume).
 */
@Tag("integration")
class LocalLifecycleTest {

  @Test
  void ebsAndEfsVolumesLiveTheirWholeLife() throws Exception {
    Path work = Files.createTempDirectory(Path.of("/tmp"), "lifecycle-");
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
    List<String> loopsBefore = LoopDeviceList.backedBy(work);
    try (LocalRuntime local = LocalRuntime.start(work.resolve("rt"), work.resolve("rt"), Set.of(Driver.EBS, Driver.EFS),
        RealismProfile.fast(), System.getenv())) {
      LifecycleWalkthrough walk = new LifecycleWalkthrough(local.aws(), work.resolve("rt"), out);
      walk.runEbs(local.endpoint(Driver.EBS));
      walk.runEfs(local.endpoint(Driver.EFS));
      walk.printSummary();
      List<LifecycleStep> steps = walk.steps();
      assertThat(steps).allSatisfy(s -> assertThat(s.ok()).as(s.name() + ": " + s.detail()).isTrue());
      assertThat(steps).extracting(LifecycleStep::rpc).contains("CreateVolume", "ControllerPublishVolume",
          "NodeStageVolume", "NodePublishVolume", "ControllerExpandVolume", "NodeExpandVolume", "CreateSnapshot",
          "NodeUnpublishVolume", "NodeUnstageVolume", "ControllerUnpublishVolume", "DeleteVolume", "DeleteSnapshot");
      assertThat(step(steps, "ebs", "create a 1 GiB gp3 volume").awsCalls()).containsKey("CreateVolume");
      assertThat(step(steps, "ebs", "grow the volume to 2 GiB").awsCalls()).containsKey("ModifyVolume");
      assertThat(step(steps, "ebs", "snapshot the volume").awsCalls()).containsKey("CreateSnapshot");
      assertThat(step(steps, "efs", "create an access-point volume").awsCalls()).containsKey("CreateAccessPoint");
      assertThat(step(steps, "ebs", "read the file back from the restored volume").detail()).startsWith("same");
      assertThat(step(steps, "efs", "read it through the second pod (ReadWriteMany)").detail()).startsWith("same");
      // Everything the walkthrough made is gone from emulated AWS.
      try (var ec2 = io.awscsi.local.LocalAws.ec2(local.aws().endpoint());
          var efs = io.awscsi.local.LocalAws.efs(local.aws().endpoint())) {
        assertThat(ec2.describeVolumes().volumes()).noneMatch(v -> v.tags().stream()
            .anyMatch(t -> t.key().equals("CSIVolumeName") && t.value().startsWith("pvc-local-walkthrough")));
        assertThat(ec2.describeSnapshots(r -> r.ownerIds("self")).snapshots()).isEmpty();
        assertThat(efs.describeAccessPoints(r -> r.fileSystemId(local.aws().fileSystemId())).accessPoints()).isEmpty();
      }
    } finally {
      System.out.print(printed.toString(StandardCharsets.UTF_8));
      assertThat(LoopDeviceList.backedBy(work)).as("loop devices left behind").isEqualTo(loopsBefore);
      Tools.deleteTreeIfUnmounted(work);
    }
  }

  private static LifecycleStep step(List<LifecycleStep> steps, String driver, String name) {
    return steps.stream().filter(s -> s.driver().equals(driver) && s.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no step " + name));
  }
}
