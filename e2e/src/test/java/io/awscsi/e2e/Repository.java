package io.awscsi.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Files of this repository, found from the module directory Maven runs the tests in. */
final class Repository {

  private Repository() {}

  static Path root() {
    for (Path directory = Path.of("").toAbsolutePath(); directory != null; directory = directory.getParent()) {
      if (Files.isRegularFile(directory.resolve("Dockerfile")) && Files.isDirectory(directory.resolve("driver-core"))) {
        return directory;
      }
    }
    throw new IllegalStateException("no Dockerfile next to driver-core/ above " + Path.of("").toAbsolutePath());
  }

  /** A file by its path from the repository's root, as a Dockerfile's COPY names it. */
  static String read(String relative) {
    try {
      return Files.readString(root().resolve(relative));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
