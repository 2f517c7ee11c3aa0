package io.awscsi.e2e.local;

import io.awscsi.launcher.DriverOptions.Driver;
import io.awscsi.local.LocalRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One csi-sanity v5.5.0 run against a driver of a local runtime, over its socket, with real directories for staging
 * and target paths; its log and JUnit report land in {@code target/csi-sanity-<label>.log|xml}.
 */
public final class CsiSanityRun {

  /** The EBS StorageClass parameters csi-sanity creates its volumes with, and those it modifies them to. */
  public static final Map<String, String> EBS_PARAMETERS = Map.of("type", "gp3", "iops", "3000");
  public static final Map<String, String> EBS_MUTABLE_PARAMETERS = Map.of("iops", "3014", "throughput", "153");

  private static final Pattern RAN = Pattern.compile("Ran (\\d+) of (\\d+) Specs");
  private static final Pattern RESULT =
      Pattern.compile("(\\d+) Passed \\| (\\d+) Failed \\| (\\d+) Pending \\| (\\d+) Skipped");

  public record Result(int passed, int failed, int skipped, int exitCode, String summary) {}

  private CsiSanityRun() {}

  /** Runs csi-sanity against {@code driver} of {@code local}; {@code mutable} may be null. */
  public static Result run(LocalRuntime local, Driver driver, Path work, Map<String, String> params,
      Map<String, String> mutable, String label) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(Tools.csiSanity().toString(),
        "--csi.endpoint=" + local.endpoint(driver).socketPath(),
        "--csi.mountdir=" + work.resolve("target"), "--csi.stagingdir=" + work.resolve("staging"),
        // csi-sanity's default 10 GiB, as upstream runs it (gp3 allows 500 IOPS per GiB: 3000 IOPS needs 6 GiB).
        "--csi.testvolumeparameters=" + yaml(work.resolve("params.yaml"), params),
        "--ginkgo.no-color", "--ginkgo.timeout=20m",
        "--ginkgo.junit-report=" + Path.of("target", "csi-sanity-" + label + ".xml").toAbsolutePath()));
    if (mutable != null) {
      cmd.add("--csi.testvolumemutableparameters=" + yaml(work.resolve("mutable.yaml"), mutable));
    }
    Path log = Path.of("target", "csi-sanity-" + label + ".log").toAbsolutePath();
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
    System.out.println("csi-sanity " + driver.csiName() + " (" + label + "): " + summary);
    return new Result(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(4)),
        p.exitValue(), summary);
  }

  private static Path yaml(Path file, Map<String, String> values) throws IOException {
    StringBuilder b = new StringBuilder();
    values.forEach((k, v) -> b.append(k).append(": \"").append(v).append("\"\n"));
    return Files.writeString(file, b.toString());
  }
}
