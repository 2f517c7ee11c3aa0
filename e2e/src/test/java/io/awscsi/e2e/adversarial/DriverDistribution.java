package io.awscsi.e2e.adversarial;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The built distribution the adversarial suite runs ({@code bin/aws-csi-driver} and its jars), as the image ships it.
 * {@code -Dawscsi.dist=DIR} names one; otherwise the distribution is assembled once per test JVM with
 * {@code hack/assemble-dist.sh} from the launcher module's shaded jar into {@code e2e/target/dist/aws-csi-driver}
 * (Maven packages the launcher before the e2e module's tests run, so {@code mvn verify} needs no extra step), and
 * re-assembled when that jar is newer than the copy.
 */
public final class DriverDistribution {

  private static Path assembled;

  private DriverDistribution() {}

  /** The distribution's home (the directory holding {@code bin/} and {@code lib/}). */
  public static synchronized Path home() {
    String configured = System.getProperty("awscsi.dist", "");
    if (!configured.isBlank()) {
      Path dir = Path.of(configured).toAbsolutePath().normalize();
      if (!Files.isExecutable(dir.resolve("bin/aws-csi-driver"))) {
        throw new AssertionError("-Dawscsi.dist=" + configured + " has no executable bin/aws-csi-driver");
      }
      return dir;
    }
    if (assembled == null) {
      assembled = assemble();
    }
    return assembled;
  }

  /** {@code bin/aws-csi-driver} of the distribution. */
  public static Path launcher() {
    return home().resolve("bin/aws-csi-driver");
  }

  private static Path assemble() {
    Path root = repositoryRoot();
    Path jar = shadedJar(root);
    Path dist = root.resolve("e2e/target/dist/aws-csi-driver");
    Path copy = dist.resolve("lib/aws-csi-driver.jar");
    try {
      if (Files.exists(copy) && modified(jar).compareTo(modified(copy)) <= 0) {
        return dist;
      }
      Process p = new ProcessBuilder("bash", root.resolve("hack/assemble-dist.sh").toString(), dist.toString())
          .redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new AssertionError("hack/assemble-dist.sh " + dist + " failed:\n" + out);
      }
      return dist;
    } catch (IOException e) {
      throw new AssertionError("cannot assemble the distribution into " + dist + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while assembling the distribution", e);
    }
  }

  private static Path shadedJar(Path root) {
    try (Stream<Path> files = Files.list(root.resolve("launcher/target"))) {
      return files.filter(f -> f.getFileName().toString().matches("launcher-.*-all\\.jar")).findFirst()
          .orElseThrow(DriverDistribution::notPackaged);
    } catch (IOException e) {
      throw notPackaged();
    }
  }

  private static AssertionError notPackaged() {
    return new AssertionError("launcher/target has no launcher-*-all.jar: the adversarial suite runs the built "
        + "distribution, so run it with `mvn verify` (or `package`) over the launcher too, e.g. "
        + "`mvn -pl e2e -am verify -Dit=true -Dtest='Adversarial*' -Dsurefire.failIfNoSpecifiedTests=false`, "
        + "or pass -Dawscsi.dist=dist/aws-csi-driver after `make build`");
  }

  private static FileTime modified(Path file) throws IOException {
    return Files.getLastModifiedTime(file);
  }

  /** The directory holding {@code hack/assemble-dist.sh}: the working directory or one of its parents. */
  static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("hack/assemble-dist.sh"))) {
        return dir;
      }
    }
    throw new AssertionError("no hack/assemble-dist.sh above " + Path.of("").toAbsolutePath());
  }
}
