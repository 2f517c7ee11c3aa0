package io.awscsi.e2e.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.launcher.DriverOptions.Driver;
import io.awscsi.local.LocalRuntime;
import io.awscsi.realism.RealismProfile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * csi-sanity v5.5.0 against the real driver process over its socket, in {@code all} mode, with emulated AWS (moto
 * behind the realism layer), real loop devices and real directories for staging and target paths.
 */
@Tag("integration")
class CsiSanityTest {

  private static final Pattern RAN = Pattern.compile("Ran (\\d+) of (\\d+) Specs");
  private static final Pattern RESULT = Pattern.compile("(\\d+) Passed \\| (\\d+) Failed \\| (\\d+) Pending \\| (\\d+) Skipped");

  @Test
  void ebsPassesCsiSanity() throws Exception {
    SanityResult r = run(Driver.EBS, Map.of("type", "gp3", "iops", "3000"), Map.of("iops", "3014", "throughput", "153"));
    assertThat(r.failed()).as(r.summary()).isZero();
    assertThat(r.exitCode()).as(r.summary()).isZero();
    assertThat(r.passed()).as(r.summary()).isGreaterThan(40);
  }

  @Test
  void efsPassesCsiSanity() throws Exception {
    SanityResult r = run(Driver.EFS, null, null);
    assertThat(r.failed()).as(r.summary()).isZero();
    assertThat(r.exitCode()).as(r.summary()).isZero();
    assertThat(r.passed()).as(r.summary()).isGreaterThan(10);
  }

  record SanityResult(int passed, int failed, int skipped, int exitCode, String summary) {}

  private static SanityResult run(Driver driver, Map<String, String> params, Map<String, String> mutable)
      throws Exception {
    Path work = Files.createTempDirectory(Path.of("/tmp"), "sanity-" + driver.name().toLowerCase() + "-");
    try (LocalRuntime local = LocalRuntime.start(work.resolve("rt"), Set.of(driver), RealismProfile.fast(),
        System.getenv())) {
      if (driver == Driver.EFS) {
        params = Map.of("provisioningMode", "efs-ap", "fileSystemId", local.aws().fileSystemId(),
            "directoryPerms", "700");
      }
      List<String> cmd = new ArrayList<>(List.of(Tools.csiSanity().toString(),
          "--csi.endpoint=" + local.endpoint(driver).socketPath(),
          "--csi.mountdir=" + work.resolve("target"), "--csi.stagingdir=" + work.resolve("staging"),
          // csi-sanity's default 10 GiB, as upstream runs it (gp3 allows 500 IOPS per GiB: 3000 IOPS needs 6 GiB).
          "--csi.testvolumeparameters=" + yaml(work.resolve("params.yaml"), params),
          "--ginkgo.no-color", "--ginkgo.timeout=20m",
          "--ginkgo.junit-report=" + Path.of("target", "csi-sanity-" + driver.name().toLowerCase() + ".xml")
              .toAbsolutePath()));
      if (mutable != null) {
        cmd.add("--csi.testvolumemutableparameters=" + yaml(work.resolve("mutable.yaml"), mutable));
      }
      Path log = Path.of("target", "csi-sanity-" + driver.name().toLowerCase() + ".log").toAbsolutePath();
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (!p.waitFor(25, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionError("csi-sanity did not finish in 25 minutes; see " + log);
      }
      String out = Files.readString(log);
      Matcher m = RESULT.matcher(out);
      Matcher ran = RAN.matcher(out);
      if (!m.find()) {
        throw new AssertionError("csi-sanity printed no result (exit " + p.exitValue() + "); see " + log);
      }
      String summary = (ran.find() ? ran.group() + ": " : "") + m.group() + " (log " + log + ")";
      System.out.println("csi-sanity " + driver.csiName() + ": " + summary);
      return new SanityResult(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
          Integer.parseInt(m.group(4)), p.exitValue(), summary);
    } finally {
      Tools.deleteTreeIfUnmounted(work);
    }
  }

  private static Path yaml(Path file, Map<String, String> values) throws IOException {
    StringBuilder b = new StringBuilder();
    values.forEach((k, v) -> b.append(k).append(": \"").append(v).append("\"\n"));
    return Files.writeString(file, b.toString());
  }
}
