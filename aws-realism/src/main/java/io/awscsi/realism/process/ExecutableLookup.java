package io.awscsi.realism.process;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Finds executables on PATH and in a few well-known directories. */
final class ExecutableLookup {

  private ExecutableLookup() {}

  static Optional<Path> onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** {@code $(go env GOPATH)/bin}, falling back to {@code ~/go/bin} when go itself is not on PATH. */
  static List<Path> goBinDirectories() {
    var dirs = new ArrayList<Path>();
    onPath("go").ifPresent(go -> {
      try {
        Process process = new ProcessBuilder(go.toString(), "env", "GOPATH").redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes()).trim();
        if (process.waitFor(20, TimeUnit.SECONDS) && process.exitValue() == 0 && !out.isEmpty()) {
          for (String entry : out.split(File.pathSeparator)) {
            dirs.add(Path.of(entry, "bin"));
          }
        }
      } catch (IOException e) {
        // go is not usable; the fallback below still applies
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    dirs.add(Path.of(System.getProperty("user.home"), "go", "bin"));
    return dirs;
  }

  static Optional<Path> inDirectories(String name, List<Path> dirs) {
    return dirs.stream().map(dir -> dir.resolve(name))
        .filter(candidate -> Files.isRegularFile(candidate) && Files.isExecutable(candidate))
        .findFirst();
  }
}
