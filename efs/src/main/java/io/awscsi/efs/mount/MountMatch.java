package io.awscsi.efs.mount;

/** Whether what is mounted at a target is the EFS path a request names, as far as the mount table can tell. */
public sealed interface MountMatch {

  /** It is: the same file system, path (and access point, where it shows). */
  record Same() implements MountMatch {}

  /** It is not: another file system, path, type or source. */
  record Different(String what) implements MountMatch {}

  /** It cannot be told (an NFS mount through a TLS tunnel whose state is not readable here). */
  record Unknown(String why) implements MountMatch {}

  default boolean isSame() {
    return this instanceof Same;
  }
}
