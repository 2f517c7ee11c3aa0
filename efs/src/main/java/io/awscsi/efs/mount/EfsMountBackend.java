package io.awscsi.efs.mount;

import java.nio.file.Path;

/**
 * How an EFS path gets mounted on this host: through efs-utils in production, or as a bind mount of a local directory
 * standing in for the file system where there is no NFS client. Unmounting is the mounter's job for both.
 */
public interface EfsMountBackend {

  /** Mounts at {@code target}, an existing empty directory. */
  void mount(EfsMountRequest request, Path target);

  /** Whether the backend can work here (efs-utils installed, local root usable); the reason when it cannot. */
  String unavailableReason();

  /** The backend's name as the --efs-mount-backend flag spells it. */
  String name();
}
