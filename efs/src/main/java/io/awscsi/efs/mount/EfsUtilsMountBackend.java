package io.awscsi.efs.mount;

import io.awscsi.core.host.HostTool;
import io.awscsi.core.host.Mounter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Mounts with amazon-efs-utils: {@code mount -t efs -o tls,accesspoint=fsap-...,... fs-...:/path target}. {@code mount}
 * hands the call to {@code mount.efs}, which starts the TLS proxy and mounts NFS 4.1 through it.
 */
public final class EfsUtilsMountBackend implements EfsMountBackend {

  static final String FS_TYPE = "efs";
  private static final List<String> HELPER_DIRECTORIES = List.of("/sbin", "/usr/sbin");

  private final Mounter mounter;
  private final Runnable beforeMount;

  public EfsUtilsMountBackend(Mounter mounter) {
    this(mounter, () -> { });
  }

  /** @param beforeMount run before every mount (idempotent): makes efs-utils ready where that is left to the first mount */
  public EfsUtilsMountBackend(Mounter mounter, Runnable beforeMount) {
    this.mounter = mounter;
    this.beforeMount = beforeMount;
  }

  @Override
  public void mount(EfsMountRequest request, Path target) {
    beforeMount.run();
    List<String> options = new ArrayList<>();
    if (request.readOnly()) {
      options.add("ro");
    }
    options.addAll(request.options());
    mounter.mount(request.fileSystemId() + ":" + request.path(), target, FS_TYPE, options, request.timeout());
  }

  @Override
  public String unavailableReason() {
    // mount(8) looks for its helpers in /sbin (which is /usr/sbin on merged-/usr systems).
    String executable = HostTool.MOUNT_EFS.executable();
    for (String dir : HELPER_DIRECTORIES) {
      if (Files.isExecutable(Path.of(dir, executable))) {
        return "";
      }
    }
    return executable + " (package " + HostTool.MOUNT_EFS.imagePackage() + ") is not installed in "
        + String.join(" or ", HELPER_DIRECTORIES) + "; EFS volumes cannot be mounted";
  }

  @Override
  public String name() {
    return "efs-utils";
  }
}
