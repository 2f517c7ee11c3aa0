package io.awscsi.core.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.Set;

/**
 * Where a volume may be mounted (a staging or target path): never on the root directory, through a symbolic link
 * (the mount would land on the link's target, anywhere on the host), on a file of the wrong kind, or inside a kernel
 * pseudo file system ({@code /proc}, {@code /sys}, {@code /dev}, cgroups), where a mount hides what the host runs on.
 */
public final class MountTargets {

  /** What a mount needs at the path. */
  public enum Kind {
    /** A file system (or a bind of one): a directory. */
    DIRECTORY,
    /** A block device bind-mounted: a regular file. */
    FILE
  }

  /** File systems that are the kernel's interfaces, not storage: nothing is ever mounted inside them. */
  static final Set<String> PSEUDO_FILE_SYSTEMS = Set.of("proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2",
      "securityfs", "debugfs", "tracefs", "bpf", "configfs", "pstore", "efivarfs", "fusectl", "mqueue",
      "binfmt_misc", "autofs", "selinuxfs", "nsfs", "hugetlbfs", "rpc_pipefs", "nfsd");

  private MountTargets() {}

  /**
   * Why nothing may be mounted at the path, or empty when it may. The path is absolute and clean, and nothing is
   * mounted on it (callers check that first).
   */
  public static Optional<String> problem(Mounter mounter, Path path, Kind kind) {
    if (path.getParent() == null) {
      return Optional.of("is the root directory");
    }
    BasicFileAttributes attributes = null;
    try {
      attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException absent) {
      // Not there yet: it is created as the kind asked.
    }
    if (attributes != null) {
      if (attributes.isSymbolicLink()) {
        return Optional.of("is a symbolic link" + linkTarget(path) + "; a mount there would land on whatever it "
            + "points to, so it is not followed");
      }
      if (kind == Kind.DIRECTORY && !attributes.isDirectory()) {
        return Optional.of("is " + describe(attributes) + "; a file-system volume is mounted on a directory");
      }
      if (kind == Kind.FILE && !attributes.isRegularFile()) {
        return Optional.of("is " + describe(attributes) + "; a block volume is bind-mounted on a regular file");
      }
    }
    return mounter.mountContaining(path)
        .filter(mount -> PSEUDO_FILE_SYSTEMS.contains(mount.fsType()))
        .map(mount -> "lies in " + mount.mountPoint() + ", a " + mount.fsType() + " file system of the kernel, "
            + "where no volume is mounted");
  }

  private static String describe(BasicFileAttributes attributes) {
    if (attributes.isDirectory()) {
      return "a directory";
    }
    if (attributes.isRegularFile()) {
      return "a regular file";
    }
    return "a device, socket or pipe";
  }

  private static String linkTarget(Path path) {
    try {
      return " (to " + Files.readSymbolicLink(path) + ")";
    } catch (IOException e) {
      return "";
    }
  }
}
