package io.awscsi.efs.mount;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** Directories with a numeric owner and an exact mode (setgid and sticky bits included, no umask). */
public final class PosixDirectory {

  /** Owner or group not to change. */
  public static final long KEEP = -1;

  private PosixDirectory() {}

  /**
   * Creates the directory if missing, then sets owner, group and mode. Owner first: a chown clears setgid.
   *
   * @return true when this call created it
   */
  public static boolean create(Path directory, long uid, long gid, int mode) throws IOException {
    boolean created;
    try {
      Files.createDirectory(directory);
      created = true;
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
        throw new IOException(directory + " exists and is not a directory", e);
      }
      created = false;
    }
    apply(directory, uid, gid, mode);
    return created;
  }

  /** Sets owner, group and mode of an existing directory. */
  public static void apply(Path directory, long uid, long gid, int mode) throws IOException {
    if (uid != KEEP) {
      Files.setAttribute(directory, "unix:uid", (int) uid, LinkOption.NOFOLLOW_LINKS);
    }
    if (gid != KEEP) {
      Files.setAttribute(directory, "unix:gid", (int) gid, LinkOption.NOFOLLOW_LINKS);
    }
    Files.setAttribute(directory, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
  }

  /** Parses an octal mode such as "755" or "2775". */
  public static int mode(String octal) {
    return Integer.parseInt(octal, 8);
  }
}
