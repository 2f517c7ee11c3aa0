package io.awscsi.core.host;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Mounts and unmounts on this host, and answers what is mounted where from the kernel's mount table. Option
 * validation is the caller's job ({@link MountOptions}); the mounter passes options through as separate arguments.
 */
public interface Mounter {

  /** Every mount visible to this process, in mount-table order (later entries are stacked on earlier ones). */
  List<MountInfo> mounts();

  /** The topmost mount whose mount point is this path. */
  Optional<MountInfo> findMount(Path path);

  /** What is at the path; a stat that fails with ENOTCONN, ESTALE or EIO, or hangs, reports {@code Corrupted}. */
  MountState inspect(Path path);

  /**
   * The mount whose file system holds the path (the path's own mount when it is a mount point): the topmost mount
   * whose mount point is the longest prefix of the path's real location (its nearest existing ancestor's, when the
   * path does not exist yet).
   */
  default Optional<MountInfo> mountContaining(Path path) {
    Path real = path.toAbsolutePath().normalize();
    Path existing = real;
    while (existing != null && !java.nio.file.Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return Optional.empty();
    }
    try {
      real = existing.toRealPath().resolve(existing.relativize(real));
    } catch (java.io.IOException e) {
      return Optional.empty();
    }
    MountInfo best = null;
    for (MountInfo mount : mounts()) {
      if (real.startsWith(mount.mountPoint())
          && (best == null || mount.mountPoint().getNameCount() >= best.mountPoint().getNameCount())) {
        best = mount;
      }
    }
    return Optional.ofNullable(best);
  }

  /** Whether something (healthy or corrupted) is mounted on the path. */
  default boolean isMountPoint(Path path) {
    return inspect(path).isMountPoint();
  }

  /** {@code mount -t fsType [-o options] source target}, within the command runner's default timeout. */
  default void mount(String source, Path target, String fsType, List<String> options) {
    mount(source, target, fsType, options, Command.DEFAULT_TIMEOUT);
  }

  /**
   * {@code mount -t fsType [-o options] source target}; a mount still running after {@code timeout} (an NFS server
   * that does not answer) is killed with the helpers it started.
   *
   * @throws CommandException.TimedOut when it did not finish in time
   */
  void mount(String source, Path target, String fsType, List<String> options, Duration timeout);

  /**
   * Bind-mounts a directory or a device file. Per-mount flags such as {@code ro} cannot be set by the bind itself,
   * so they are applied by a second {@code remount,bind}; if that fails the bind is undone, leaving nothing behind.
   */
  void bindMount(Path source, Path target, boolean readOnly, List<String> options);

  /** Unmounts the path, including mounts stacked on it; nothing mounted is success. */
  void unmount(Path target);

  /**
   * Unmounts a path whose server may be gone (hung NFS): {@code umount -f} bounded by the timeout, then a lazy
   * {@code umount -l} that detaches it at once if the forced unmount failed or hung.
   */
  void forceUnmount(Path target, Duration timeout);
}
