package io.awscsi.efs.mount;

import io.awscsi.core.host.MountInfo;
import io.awscsi.core.host.Mounter;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * How an EFS path gets mounted on this host: through efs-utils in production, or as a bind mount of a local directory
 * standing in for the file system where there is no NFS client. Unmounting is the mounter's job for both.
 */
public interface EfsMountBackend {

  /** Mounts at {@code target}, an existing empty directory. */
  void mount(EfsMountRequest request, Path target);

  /**
   * Whether {@code mount} (what the mount table shows at a target) is this request's file system path: the source,
   * type and where it comes from. Read-only and options are compared by the caller.
   */
  MountMatch match(EfsMountRequest request, MountInfo mount);

  /**
   * Whether the mount is of the kind this backend makes (an NFS mount, a bind from the local root): a tear-down
   * unmounts nothing else, whatever path it is given.
   */
  boolean madeHere(MountInfo mount);

  /** Whether the backend can work here (efs-utils installed, local root usable); the reason when it cannot. */
  String unavailableReason();

  /** The backend's name, for the messages that say which backend refused or failed. */
  String name();

  /**
   * Builds the backend a controller or node uses in place of efs-utils' (the seam a caller fills that has no NFS
   * client to mount with).
   */
  @FunctionalInterface
  interface Factory {

    /**
     * @param accessPoints how to read an access point (its root directory's path and owner), on first use only:
     *     efs-utils leaves that to EFS, a backend standing in for EFS reads it
     */
    EfsMountBackend create(Mounter mounter, Supplier<AccessPointLookup> accessPoints);
  }
}
