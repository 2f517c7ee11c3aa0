package io.awscsi.efs.controller;

import io.awscsi.core.json.JsonQuoting;
import io.awscsi.efs.volume.EfsPaths;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * What a volume directory's names may be on a shared file system. Each value a request supplies (the volume name, the
 * PVC name and namespace, the PV name) becomes exactly one directory name: never a "/" that adds a level (so volume
 * {@code outer/inner} would sit inside volume {@code outer}), never "." or "..", never a control character. Names
 * starting with {@link #RESERVED_PREFIX} belong to the driver's own state ({@link DirectoryLedger#DIRECTORY}) and
 * no volume gets one. Lengths are Linux's (and EFS's) limits, counted in UTF-8 bytes as the kernel counts them, so an
 * over-long name is refused up front instead of failing in mkdir.
 */
final class DirectoryNames {

  /** Longest directory name in bytes (NAME_MAX). */
  static final int NAME_MAX = 255;
  /** Longest path in bytes, without the terminating NUL (PATH_MAX 4096). */
  static final int PATH_MAX = 4095;
  /** Names the driver keeps for itself at any depth; the ledger is {@code /.efs-csi-volumes}. */
  static final String RESERVED_PREFIX = EfsPaths.RESERVED_PREFIX;

  /** Characters of a value quoted in a message. */
  static final int QUOTED_MAX = 120;

  private DirectoryNames() {}

  /** Why {@code value} cannot be one directory name, or empty when it can; the length is checked too. */
  static Optional<String> componentProblem(String value) {
    return componentProblem(value, true);
  }

  /**
   * Why {@code value} cannot be one directory name, or empty when it can.
   *
   * @param checkLength false when the caller shortens long values itself
   */
  static Optional<String> componentProblem(String value, boolean checkLength) {
    if (value.isEmpty()) {
      return Optional.of("is empty");
    }
    if (value.equals(".") || value.equals("..")) {
      return Optional.of("is \"" + value + "\", which names no directory of its own");
    }
    if (value.indexOf('/') >= 0) {
      return Optional.of("contains \"/\"; it must be a single directory name, so that no volume's directory lies "
          + "inside another's");
    }
    Optional<String> characters = characterProblem(value);
    if (characters.isPresent()) {
      return characters;
    }
    if (value.startsWith(RESERVED_PREFIX)) {
      return Optional.of("starts with \"" + RESERVED_PREFIX + "\", which is reserved for the driver's own records");
    }
    int bytes = utf8Length(value);
    if (checkLength && bytes > NAME_MAX) {
      return Optional.of("is " + bytes + " bytes long; a directory name has at most " + NAME_MAX);
    }
    return Optional.empty();
  }

  /**
   * Why the clean absolute {@code path} cannot be created as written, or empty: a control character, a name over
   * NAME_MAX, a reserved name, or a path over PATH_MAX. Values the operator chose (basePath, the fixed text of
   * subPathPattern) may hold "/", so only the resulting names are checked.
   */
  static Optional<String> pathProblem(String path) {
    Optional<String> characters = characterProblem(path);
    if (characters.isPresent()) {
      return characters;
    }
    for (String name : path.split("/")) {
      if (name.startsWith(RESERVED_PREFIX)) {
        return Optional.of("has the directory name \"" + name + "\"; names starting with \"" + RESERVED_PREFIX
            + "\" are reserved for the driver's own records");
      }
      int bytes = utf8Length(name);
      if (bytes > NAME_MAX) {
        return Optional.of("has a directory name of " + bytes + " bytes; at most " + NAME_MAX + " are allowed");
      }
    }
    int bytes = utf8Length(path);
    if (bytes > PATH_MAX) {
      return Optional.of("is " + bytes + " bytes long; a path has at most " + PATH_MAX);
    }
    return Optional.empty();
  }

  /** Whether the clean absolute path is, or lies inside, a reserved directory (driver state, never a volume's). */
  static boolean reserved(String path) {
    return EfsPaths.isDriverState(path);
  }

  /** NUL, other C0 and C1 controls and DEL: the kernel takes all but NUL, but a name must print as it is. */
  static Optional<String> characterProblem(String value) {
    int index = 0;
    for (int c : value.codePoints().toArray()) {
      if (Character.isISOControl(c)) {
        return Optional.of("contains " + (c == 0 ? "a NUL byte" : "the control character U+"
            + String.format("%04X", c)) + " at character " + index);
      }
      if (Character.getType(c) == Character.SURROGATE) {
        return Optional.of("contains an unpaired UTF-16 surrogate at character " + index);
      }
      index++;
    }
    return Optional.empty();
  }

  /**
   * The value as a quoted, escaped string for a message: control characters escaped (a name cannot forge a log line)
   * and at most {@link #QUOTED_MAX} characters (a message stays small).
   */
  static String quoted(String value) {
    return JsonQuoting.quoted(value, QUOTED_MAX);
  }

  static int utf8Length(String value) {
    return value.getBytes(StandardCharsets.UTF_8).length;
  }
}
