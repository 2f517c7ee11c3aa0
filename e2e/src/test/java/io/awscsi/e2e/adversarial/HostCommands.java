package io.awscsi.e2e.adversarial;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Host commands and mount-table reads of the adversarial tests (for what a test sets up and inspects itself). */
public final class HostCommands {

  private HostCommands() {}

  /** Runs the command (bounded to 60 s) and returns its standard output; a non-zero exit fails the test. */
  public static String run(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " did not finish within 60 s");
      }
      if (p.exitValue() != 0) {
        throw new AssertionError(String.join(" ", command) + " exited with " + p.exitValue() + ": " + out);
      }
      return out;
    } catch (IOException e) {
      throw new AssertionError("cannot run " + String.join(" ", command), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** The exit code of the command, its output discarded. */
  public static int exitCode(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return -1;
      }
      return p.exitValue();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** The topmost mountinfo line whose mount point is exactly this path. */
  public static Optional<String> mountAt(Path path) {
    List<String> lines = mountInfo().stream().filter(l -> l.split(" ")[4].equals(path.toString())).toList();
    return lines.isEmpty() ? Optional.empty() : Optional.of(lines.getLast());
  }

  /** Whether the mount at the path is read-only (its per-mount options carry {@code ro}). */
  public static boolean mountedReadOnly(Path path) {
    return mountAt(path).map(l -> List.of(l.split(" ")[5].split(",")).contains("ro")).orElse(false);
  }

  public static List<String> mountInfo() {
    try {
      return Files.readAllLines(Path.of("/proc/self/mountinfo"));
    } catch (IOException e) {
      throw new AssertionError("cannot read /proc/self/mountinfo", e);
    }
  }

  /** A loop device over a new sparse file of this size (bytes) below {@code dir}. */
  public static Path loopDevice(Path dir, String name, long size) {
    Path file = dir.resolve(name + ".img");
    run("truncate", "-s", Long.toString(size), file.toString());
    return Path.of(run("losetup", "--find", "--show", file.toString()).strip());
  }

  /** The file-system type blkid reads on the device, "" when it holds none. */
  public static String fsTypeOn(Path device) {
    try {
      Process p = new ProcessBuilder("blkid", "-p", "-s", "TYPE", "-o", "value", device.toString())
          .redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).strip();
      p.waitFor(30, TimeUnit.SECONDS);
      return p.exitValue() == 0 ? out : "";
    } catch (IOException e) {
      throw new AssertionError(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
