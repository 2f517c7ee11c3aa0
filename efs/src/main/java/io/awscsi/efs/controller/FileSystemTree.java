package io.awscsi.efs.controller;

import io.awscsi.core.errors.DriverException;
import io.awscsi.efs.fs.LinkRefusedException;
import io.awscsi.efs.fs.OpenDirectory;
import io.awscsi.efs.fs.TreeChangedException;
import io.awscsi.efs.volume.EfsPaths;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Directory work inside a mounted file system that tenants can write to, and that never leaves it: the mount root is
 * the one trusted path; below it every component is opened relative to its parent's descriptor without following a
 * link ({@link OpenDirectory}), and creation, ownership, modes and removal act on those descriptors, so a component
 * swapped for a link while the work runs only makes the work fail, never reach outside the file system.
 *
 * <p>A component that is a link or not a directory is the caller's data in the way, not a driver fault: it answers
 * FAILED_PRECONDITION naming the path. A tree that keeps changing under a removal answers ABORTED (retried).
 */
final class FileSystemTree {

  /** The mode of parent directories the controller creates (basePath and the levels of subPathPattern). */
  private static final int PARENT_MODE = 0755;

  private FileSystemTree() {}

  /**
   * The directory at {@code path} below the mount, or empty when a component does not exist.
   *
   * @throws DriverException FAILED_PRECONDITION when a component is a symbolic link or not a directory
   */
  static Optional<Path> existingDirectory(Path mountRoot, String path) throws IOException {
    try (OpenDirectory root = OpenDirectory.openTrusted(mountRoot)) {
      Optional<OpenDirectory> directory = root.walk(segments(path));
      directory.ifPresent(OpenDirectory::close);
      return directory.map(d -> mountRoot.resolve(EfsPaths.relative(path)));
    } catch (IOException e) {
      throw refusal(e, mountRoot, path);
    }
  }

  /**
   * Creates the missing parents of {@code path} (mode 0755, owned by the controller) and returns where the last
   * component goes; the last component itself is not created.
   *
   * @throws DriverException FAILED_PRECONDITION when a parent is a symbolic link or not a directory
   */
  static Path createParents(Path mountRoot, String path) throws IOException {
    List<String> segments = segments(path);
    try (OpenDirectory root = OpenDirectory.openTrusted(mountRoot);
        OpenDirectory parent = openParents(root, segments)) {
      return parent.path().resolve(segments.getLast());
    } catch (IOException e) {
      throw refusal(e, mountRoot, path);
    }
  }

  /**
   * Creates the directory {@code path} and its missing parents, and sets its owner ({@code -1}: keep) and exact mode
   * through its own descriptor.
   *
   * @return true when this call created it (an existing directory gets owner and mode too)
   * @throws DriverException FAILED_PRECONDITION when it or a parent is a symbolic link or not a directory
   */
  static boolean createDirectory(Path mountRoot, String path, long uid, long gid, int mode) throws IOException {
    List<String> segments = segments(path);
    try (OpenDirectory root = OpenDirectory.openTrusted(mountRoot);
        OpenDirectory parent = openParents(root, segments)) {
      boolean created = parent.makeChild(segments.getLast(), 0700);
      try (OpenDirectory directory = parent.openChild(segments.getLast())) {
        directory.setOwnerAndMode(uid, gid, mode);
      }
      return created;
    } catch (IOException e) {
      throw refusal(e, mountRoot, path);
    }
  }

  /**
   * Removes the directory {@code path} below the mount and everything in it, each step relative to an open
   * descriptor; links inside are removed, never followed. Missing is success.
   *
   * @return false when it did not exist
   * @throws DriverException FAILED_PRECONDITION when a parent is a symbolic link; ABORTED when the tree kept
   *     changing under the removal
   */
  static boolean removeTree(Path mountRoot, String path) throws IOException {
    List<String> segments = segments(path);
    try (OpenDirectory root = OpenDirectory.openTrusted(mountRoot)) {
      Optional<OpenDirectory> parent = root.walk(segments.subList(0, segments.size() - 1));
      if (parent.isEmpty()) {
        return false;
      }
      try (OpenDirectory p = parent.get()) {
        // The volume's own directory must be one: a link in its place is refused, not unlinked as a file.
        Optional<OpenDirectory> directory = p.openChildIfPresent(segments.getLast());
        if (directory.isEmpty()) {
          return false;
        }
        directory.get().close();
        return p.removeTree(segments.getLast());
      }
    } catch (IOException e) {
      throw refusal(e, mountRoot, path);
    }
  }

  /**
   * Removes an absolute directory and everything in it. Every component from "/" down is opened without following
   * a link, so this suits only paths the driver made without links; {@link #removeTree(Path, String)} starts at a
   * trusted mount root instead.
   */
  static void removeTree(Path directory) throws IOException {
    Path absolute = directory.toAbsolutePath().normalize();
    if (absolute.getNameCount() == 0) {
      throw new IllegalArgumentException("refusing to remove /");
    }
    removeTree(absolute.getRoot(), absolute.toString());
  }

  /** Opens (creating those missing) every component but the last. */
  private static OpenDirectory openParents(OpenDirectory root, List<String> segments) throws IOException {
    OpenDirectory current = root.walk(List.of()).orElseThrow();
    for (String segment : segments.subList(0, segments.size() - 1)) {
      try (OpenDirectory parent = current) {
        // EEXIST (a concurrent CreateVolume made it) is fine: it is opened and checked like any existing one.
        parent.makeChild(segment, PARENT_MODE);
        current = parent.openChild(segment);
      }
    }
    return current;
  }

  /**
   * A link or non-directory in the way is a precondition the caller can fix; other failures stay IOExceptions. The
   * message names the component inside the file system, not the controller's mount point.
   */
  private static IOException refusal(IOException e, Path mountRoot, String path) {
    String where = e instanceof FileSystemException f && f.getFile() != null ? inFileSystem(mountRoot, f.getFile())
        : path;
    if (e instanceof LinkRefusedException) {
      throw DriverException.failedPrecondition(where + " is a symbolic link (on the way to " + path + "); a link "
          + "where the driver needs a directory is never followed: replace it by a directory or remove it");
    }
    if (e instanceof NotDirectoryException) {
      throw DriverException.failedPrecondition(where + " is not a directory (on the way to " + path + "); the "
          + "driver never replaces it: remove it or choose another basePath");
    }
    if (e instanceof TreeChangedException) {
      throw DriverException.aborted(where + " " + ((FileSystemException) e).getReason() + "; retry");
    }
    return e;
  }

  private static String inFileSystem(Path mountRoot, String file) {
    Path absolute = mountRoot.toAbsolutePath().normalize();
    Path component = Path.of(file);
    return component.startsWith(absolute) ? EfsPaths.clean(absolute.relativize(component).toString()) : file;
  }

  private static List<String> segments(String path) {
    String relative = EfsPaths.relative(path);
    if (relative.isEmpty()) {
      throw new IllegalArgumentException("the file-system root is not a volume directory");
    }
    return Arrays.asList(relative.split("/"));
  }
}
