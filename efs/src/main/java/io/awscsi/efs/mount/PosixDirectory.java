package io.awscsi.efs.mount;

import io.awscsi.efs.fs.OpenDirectory;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Directories with a numeric owner and an exact mode (setgid and sticky bits included, no umask), created and
 * changed through an open descriptor ({@link OpenDirectory}): the directory is made with {@code mkdirat} in its
 * parent and owner and mode are set on it with {@code fchown}/{@code fchmod}, never by a path a tenant could redirect
 * between the two.
 */
public final class PosixDirectory {

  /** Owner or group not to change. */
  public static final long KEEP = -1;

  private PosixDirectory() {}

  /**
   * Creates {@code name} in {@code parent} if missing, then sets owner, group and mode. Owner first: a chown clears
   * setgid.
   *
   * @return true when this call created it
   * @throws io.awscsi.efs.fs.LinkRefusedException when {@code name} is a symbolic link
   * @throws java.nio.file.NotDirectoryException when it exists and is not a directory
   */
  public static boolean create(OpenDirectory parent, String name, long uid, long gid, int mode) throws IOException {
    boolean created = parent.makeChild(name, 0700);
    try (OpenDirectory directory = parent.openChild(name)) {
      directory.setOwnerAndMode(uid, gid, mode);
    }
    return created;
  }

  /**
   * {@link #create(OpenDirectory, String, long, long, int)} for a directory whose parent the driver trusts (links in
   * the parent's path are followed; the directory itself must not be one).
   */
  public static boolean create(Path directory, long uid, long gid, int mode) throws IOException {
    Path absolute = directory.toAbsolutePath().normalize();
    try (OpenDirectory parent = OpenDirectory.openTrusted(absolute.getParent())) {
      return create(parent, absolute.getFileName().toString(), uid, gid, mode);
    }
  }

  /** Parses an octal mode such as "755" or "2775". */
  public static int mode(String octal) {
    return Integer.parseInt(octal, 8);
  }
}
