package io.awscsi.efs.mount;

import io.awscsi.core.host.Mounter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/** The {@code --efs-mount-backend} choice. */
public enum EfsMountBackendKind {
  /** Production: {@code mount -t efs} through amazon-efs-utils. */
  EFS_UTILS,
  /** The local stand-in: {@code <localRoot>/<fs-id>/} bind-mounted, for hosts without an NFS client. */
  LOCAL;

  /**
   * Builds the backend.
   *
   * @param localRoot the stand-in's root (LOCAL only; created if missing)
   * @param accessPoints how the stand-in finds access point roots (LOCAL only; not called for EFS_UTILS)
   */
  public EfsMountBackend create(Mounter mounter, Path localRoot, Supplier<AccessPointLookup> accessPoints) {
    return create(mounter, localRoot, accessPoints, EfsUtilsMountBackend.DEFAULT_STATE_DIRECTORY, () -> { });
  }

  /**
   * Builds the backend.
   *
   * @param efsUtilsStateDirectory efs-utils' mount state, which tells TLS mounts apart (EFS_UTILS only)
   * @param beforeEfsUtilsMount run before every efs-utils mount (EFS_UTILS only; idempotent)
   */
  public EfsMountBackend create(Mounter mounter, Path localRoot, Supplier<AccessPointLookup> accessPoints,
      Path efsUtilsStateDirectory, Runnable beforeEfsUtilsMount) {
    return switch (this) {
      case EFS_UTILS -> new EfsUtilsMountBackend(mounter, efsUtilsStateDirectory, beforeEfsUtilsMount);
      case LOCAL -> {
        try {
          Files.createDirectories(localRoot);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot create the local EFS root " + localRoot, e);
        }
        yield new LocalDirectoryMountBackend(localRoot, mounter, accessPoints.get());
      }
    };
  }
}
