package io.awscsi.core.host;

/** What is at a path, as far as mounting is concerned. */
public sealed interface MountState {

  /** Nothing exists at the path. */
  record Absent() implements MountState {}

  /** The path exists and nothing is mounted on it. */
  record NotMounted() implements MountState {}

  /** A healthy mount is on the path (the topmost, when mounts are stacked). */
  record Mounted(MountInfo mount) implements MountState {}

  /**
   * Something is mounted but cannot be used: its server or FUSE daemon is gone (ENOTCONN), its handle is stale
   * (ESTALE), it returns I/O errors (EIO), or it hangs. Callers must unmount it; it is never a usable mount.
   */
  record Corrupted(String reason) implements MountState {}

  /** Whether there is something to unmount. */
  default boolean isMountPoint() {
    return this instanceof Mounted || this instanceof Corrupted;
  }
}
