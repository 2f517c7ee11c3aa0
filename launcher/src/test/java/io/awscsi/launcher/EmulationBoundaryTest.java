package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No class of a serving class path refers to the emulation module (io.awscsi.emulation: the loop-device and
 * local-directory backends, in lib/local): the compiled classes of the modules the application jar is made of hold
 * no constant naming it, as a class reference or as a name to load. hack/test-dist.sh checks the same on the
 * distribution's jars; this finds it at the module's build.
 */
class EmulationBoundaryTest {

  /** The driver's own modules in the application jar (diagnose's jar is in lib/diagnose, also no emulator's). */
  private static final List<String> SERVING_MODULES =
      List.of("driver-core", "aws-common", "ebs", "efs", "diagnose", "launcher");
  private static final List<String> EMULATION_NAMES = List.of("io/awscsi/emulation", "io.awscsi.emulation");

  @Test
  void noServingModuleClassRefersToTheEmulationModule() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    List<String> offenders = new ArrayList<>();
    int scanned = 0;
    boolean sawSelf = false;
    for (String module : SERVING_MODULES) {
      Path classes = root.resolve(module).resolve("target/classes");
      assertThat(classes).as(module + " compiled (mvn -am)").isDirectory();
      try (Stream<Path> files = Files.walk(classes)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
          scanned++;
          // Class file constants are modified UTF-8, which is plain ASCII for these names.
          String text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
          sawSelf |= text.contains("io/awscsi/launcher/DriverSeams");
          for (String name : EMULATION_NAMES) {
            if (text.contains(name)) {
              offenders.add(root.relativize(file) + " names " + name);
            }
          }
        }
      }
    }
    assertThat(scanned).as("class files scanned").isGreaterThan(100);
    // the same reading finds a reference that is there: DriverFactories names the seam interface
    assertThat(sawSelf).as("the scan reads class references").isTrue();
    assertThat(offenders).isEmpty();
  }
}
