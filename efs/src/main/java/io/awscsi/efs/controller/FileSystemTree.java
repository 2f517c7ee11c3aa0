package io.awscsi.efs.controller;

import io.awscsi.efs.volume.EfsPaths;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * Directory work inside a mounted file system that never leaves it: every component of a path is checked to be a real
 * directory, not a symbolic link (a link to "/" inside the file system would otherwise point the controller at its
 * own root), and trees are removed without following links.
 */
final class FileSystemTree {

  private FileSystemTree() {}

  /**
   * The directory at {@code path} below the mount, or empty when a component does not exist.
   *
   * @throws IOException when a component is a symbolic link or not a directory
   */
  static Optional<Path> existingDirectory(Path mountRoot, String path) throws IOException {
    Path current = mountRoot;
    for (String segment : segments(path)) {
      current = current.resolve(segment);
      if (!Files.exists(current, LinkOption.NOFOLLOW_LINKS)) {
        return Optional.empty();
      }
      requireRealDirectory(current);
    }
    return Optional.of(current);
  }

  /**
   * Creates the missing parents of {@code path} (mode 0755, owned by the controller) and returns where the last
   * component goes; the last component itself is not created.
   */
  static Path createParents(Path mountRoot, String path) throws IOException {
    String[] segments = segments(path);
    Path current = mountRoot;
    for (int i = 0; i < segments.length - 1; i++) {
      current = current.resolve(segments[i]);
      if (!Files.exists(current, LinkOption.NOFOLLOW_LINKS)) {
        try {
          Files.createDirectory(current);
        } catch (java.nio.file.FileAlreadyExistsException e) {
          // made by a concurrent CreateVolume; checked below like any existing component
        }
      }
      requireRealDirectory(current);
    }
    return current.resolve(segments[segments.length - 1]);
  }

  /** Removes the directory and everything in it; links inside are removed, never followed. Missing is success. */
  static void removeTree(Path directory) throws IOException {
    if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    requireRealDirectory(directory);
    Files.walkFileTree(directory, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
        Files.deleteIfExists(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException failure) throws IOException {
        if (failure instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE;
        }
        throw failure;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException failure) throws IOException {
        if (failure != null) {
          throw failure;
        }
        Files.deleteIfExists(dir);
        return FileVisitResult.CONTINUE;
      }
    });
  }

  private static void requireRealDirectory(Path path) throws IOException {
    if (Files.isSymbolicLink(path)) {
      throw new IOException(path + " is a symbolic link; refusing to follow it out of the file system");
    }
    if (!Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException(path + " is not a directory");
    }
  }

  private static String[] segments(String path) {
    String relative = EfsPaths.relative(path);
    if (relative.isEmpty()) {
      throw new IllegalArgumentException("the file-system root is not a volume directory");
    }
    return relative.split("/");
  }
}
