package io.awscsi.efs.volume;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Paths inside an EFS file system, always absolute and clean ("/", "/a/b"), compared as strings. Cleaning is lexical
 * like Go's {@code path.Clean} on a rooted path, so a ".." can never climb above the file-system root.
 */
public final class EfsPaths {

  public static final String ROOT = "/";

  /**
   * Directory names the driver keeps for its own state at any depth of a file system (the efs-dir ledger is
   * {@code /.efs-csi-volumes}); no volume's path ever holds one.
   */
  public static final String RESERVED_PREFIX = ".efs-csi";

  /** Whether the absolute path is, or lies inside, a directory of the driver's own state. */
  public static boolean isDriverState(String path) {
    for (String name : path.split("/")) {
      if (name.startsWith(RESERVED_PREFIX)) {
        return true;
      }
    }
    return false;
  }

  private EfsPaths() {}

  /** The rooted, clean form: empty and "." become "/", duplicate slashes, "." and ".." are resolved. */
  public static String clean(String path) {
    Deque<String> parts = new ArrayDeque<>();
    for (String segment : path.split("/")) {
      switch (segment) {
        case "", "." -> { }
        case ".." -> parts.pollLast();
        default -> parts.addLast(segment);
      }
    }
    return parts.isEmpty() ? ROOT : "/" + String.join("/", parts);
  }

  /** Whether the path, as written, has a ".." segment (cleaning would change what it names). */
  public static boolean climbs(String path) {
    for (String segment : path.split("/")) {
      if (segment.equals("..")) {
        return true;
      }
    }
    return false;
  }

  /** Joins clean paths: join("/a", "b/c") is "/a/b/c". */
  public static String join(String parent, String child) {
    return clean(parent + "/" + child);
  }

  /** Whether {@code path} lies strictly below {@code ancestor} (both clean). */
  public static boolean isStrictlyBelow(String path, String ancestor) {
    if (path.equals(ancestor)) {
      return false;
    }
    return ancestor.equals(ROOT) ? !path.equals(ROOT) : path.startsWith(ancestor + "/");
  }

  /** Whether {@code path} is {@code ancestor} or lies below it (both clean). */
  public static boolean isAtOrBelow(String path, String ancestor) {
    return path.equals(ancestor) || isStrictlyBelow(path, ancestor);
  }

  /** The path relative to the file-system root, without the leading slash ("" for the root). */
  public static String relative(String path) {
    return clean(path).substring(1);
  }
}
