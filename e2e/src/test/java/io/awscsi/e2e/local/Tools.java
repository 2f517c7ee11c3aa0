package io.awscsi.e2e.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Finds the Go test tools that {@code make deps} installs, and cleans up test work directories safely. */
final class Tools {

  private Tools() {}

  static Path csiSanity() {
    for (Path candidate : new Path[] {Path.of("..", ".tools", "bin", "csi-sanity"), Path.of(".tools", "bin", "csi-sanity")}) {
      if (Files.isExecutable(candidate)) {
        return candidate.toAbsolutePath().normalize();
      }
    }
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(":")) {
      Path p = Path.of(dir, "csi-sanity");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    throw new AssertionError("csi-sanity not found: run `make deps` (go install "
        + "github.com/kubernetes-csi/csi-test/v5/cmd/csi-sanity@v5.5.0)");
  }

  /** Deletes a work directory, but never while anything is still mounted below it (that would delete volume data). */
  static void deleteTreeIfUnmounted(Path dir) throws IOException {
    String prefix = dir.toAbsolutePath().normalize() + "/";
    try (Stream<String> lines = Files.lines(Path.of("/proc/self/mountinfo"))) {
      var mounted = lines.map(l -> l.split(" ")[4]).filter(m -> (m + "/").startsWith(prefix)).toList();
      if (!mounted.isEmpty()) {
        throw new AssertionError("left mounted after the test: " + mounted);
      }
    }
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
