package io.awscsi.e2e.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Loop devices whose backing file lies under a directory, read from sysfs. */
public final class LoopDeviceList {

  private LoopDeviceList() {}

  public static List<String> backedBy(Path dir) throws IOException {
    List<String> out = new ArrayList<>();
    String prefix = dir.toAbsolutePath().normalize() + "/";
    try (Stream<Path> blocks = Files.list(Path.of("/sys/block"))) {
      for (Path b : blocks.filter(p -> p.getFileName().toString().startsWith("loop")).toList()) {
        Path backing = b.resolve("loop/backing_file");
        if (Files.exists(backing) && Files.readString(backing).trim().startsWith(prefix)) {
          out.add(b.getFileName().toString());
        }
      }
    }
    return out;
  }
}
