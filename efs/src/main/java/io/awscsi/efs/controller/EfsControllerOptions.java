package io.awscsi.efs.controller;

import io.awscsi.efs.mount.EfsMountBackendKind;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Controller settings from the driver's flags.
 *
 * @param tags {@code --tags}: added to every access point (parsed by the launcher)
 * @param deleteAccessPointRootDir {@code --delete-access-point-root-dir}: DeleteVolume also removes the volume's
 *     directory when the guards allow it (off by default: data is kept, as upstream)
 * @param mountBackend {@code --efs-mount-backend}: how the controller mounts file systems for directory work
 * @param localRoot {@code --efs-local-root}: the local stand-in's root (LOCAL backend only)
 * @param workDir where the controller mounts file systems (one mount point per file system)
 * @param zone the controller's availability zone ("" unknown): picks the mount target of cross-account mounts
 */
public record EfsControllerOptions(
    Map<String, String> tags,
    boolean deleteAccessPointRootDir,
    EfsMountBackendKind mountBackend,
    Path localRoot,
    Path workDir,
    String zone) {

  /** Where upstream mounts file systems in the controller. */
  public static final Path DEFAULT_WORK_DIR = Path.of("/var/lib/csi/pv");

  public EfsControllerOptions {
    tags = Map.copyOf(tags);
    Objects.requireNonNull(mountBackend, "mountBackend");
    Objects.requireNonNull(localRoot, "localRoot");
    Objects.requireNonNull(workDir, "workDir");
    zone = zone == null ? "" : zone;
  }
}
