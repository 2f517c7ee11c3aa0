package io.awscsi.e2e.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.launcher.DriverOptions.Driver;
import io.awscsi.local.LocalRuntime;
import io.awscsi.realism.RealismProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
    assertThat(groupControllerSpecs("ebs")).as("csi-sanity's GroupController specs: EBS serves group snapshots")
        .hasSize(6).containsOnly("passed");
  }

  @Test
  void efsPassesCsiSanity() throws Exception {
    CsiSanityRun.Result r = run(Driver.EFS);
    assertThat(r.failed()).as(r.summary()).isZero();
    assertThat(r.exitCode()).as(r.summary()).isZero();
    assertThat(r.passed()).as(r.summary()).isGreaterThan(10);
    assertThat(groupControllerSpecs("efs")).as("EFS does not advertise the GroupController service")
        .hasSize(6).containsOnly("skipped");
  }

  /** The outcome of each GroupController spec in the run's JUnit report: passed, failed or skipped. */
  private static List<String> groupControllerSpecs(String label) throws Exception {
    var doc = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(Path.of("target", "csi-sanity-" + label + ".xml").toFile());
    var cases = doc.getElementsByTagName("testcase");
    List<String> outcomes = new java.util.ArrayList<>();
    for (int i = 0; i < cases.getLength(); i++) {
      var c = (org.w3c.dom.Element) cases.item(i);
      if (c.getAttribute("name").contains("GroupController")) {
        outcomes.add(c.getElementsByTagName("skipped").getLength() > 0 ? "skipped"
            : c.getElementsByTagName("failure").getLength() + c.getElementsByTagName("error").getLength() > 0
                ? "failed" : "passed");
      }
    }
    return outcomes;
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
