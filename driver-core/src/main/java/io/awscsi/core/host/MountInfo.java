package io.awscsi.core.host;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One line of {@code /proc/<pid>/mountinfo} (proc(5)), with the octal escapes of paths and sources decoded.
 *
 * @param mountId unique id of the mount
 * @param parentId id of the parent mount
 * @param deviceNumber {@code major:minor} of the file system's device
 * @param root the directory of the file system that forms the root of this mount ({@code /} unless a bind mount)
 * @param mountPoint where it is mounted, relative to this process's root
 * @param mountOptions per-mount options ({@code rw}, {@code nosuid}, ...)
 * @param optionalFields tagged fields such as {@code shared:1} or {@code master:2}
 * @param fsType the file system type, including a subtype ({@code fuse.sshfs})
 * @param source the mount source ({@code /dev/loop0}, {@code fs-1234:/}, {@code tmpfs})
 * @param superOptions per-superblock options
 */
public record MountInfo(
    int mountId,
    int parentId,
    String deviceNumber,
    String root,
    Path mountPoint,
    List<String> mountOptions,
    List<String> optionalFields,
    String fsType,
    String source,
    List<String> superOptions) {

  public MountInfo {
    mountOptions = List.copyOf(mountOptions);
    optionalFields = List.copyOf(optionalFields);
    superOptions = List.copyOf(superOptions);
  }

  /** Whether the mount itself is read-only (a read-only bind of a writable file system counts). */
  public boolean readOnly() {
    return mountOptions.contains("ro");
  }

  /**
   * Parses the whole file. Lines that do not have the documented shape are an error, not skipped: a mount table we
   * cannot read is no basis for deciding that something is not mounted.
   */
  public static List<MountInfo> parseAll(String content) {
    var mounts = new ArrayList<MountInfo>();
    for (var line : content.split("\n")) {
      if (!line.isBlank()) {
        mounts.add(parse(line));
      }
    }
    return mounts;
  }

  /** Parses one line: six fixed fields, zero or more optional fields, {@code -}, then type, source, super options. */
  public static MountInfo parse(String line) {
    var fields = line.strip().split(" ");
    int separator = -1;
    for (int i = 6; i < fields.length; i++) {
      if (fields[i].equals("-")) {
        separator = i;
        break;
      }
    }
    if (fields.length < 9 || separator < 0 || fields.length < separator + 3) {
      throw new IllegalArgumentException("not a mountinfo line (expected 6 fields, optional fields, '-', "
          + "type, source, options): " + line);
    }
    try {
      return new MountInfo(
          Integer.parseInt(fields[0]),
          Integer.parseInt(fields[1]),
          fields[2],
          unescape(fields[3]),
          Path.of(unescape(fields[4])),
          splitOptions(fields[5]),
          List.of(fields).subList(6, separator),
          unescape(fields[separator + 1]),
          unescape(fields[separator + 2]),
          separator + 3 < fields.length ? splitOptions(fields[separator + 3]) : List.of());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a mountinfo line (mount ids are not numbers): " + line, e);
    }
  }

  /** The kernel writes space, tab, newline and backslash in paths as {@code \ooo} octal escapes. */
  static String unescape(String field) {
    if (field.indexOf('\\') < 0) {
      return field;
    }
    var out = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && isOctal(field, i + 1)) {
        out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static boolean isOctal(String s, int from) {
    if (from + 3 > s.length()) {
      return false;
    }
    for (int i = from; i < from + 3; i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '7') {
        return false;
      }
    }
    return true;
  }

  private static List<String> splitOptions(String field) {
    var options = new ArrayList<String>();
    for (var option : field.split(",")) {
      if (!option.isEmpty()) {
        options.add(unescape(option));
      }
    }
    return options;
  }
}
