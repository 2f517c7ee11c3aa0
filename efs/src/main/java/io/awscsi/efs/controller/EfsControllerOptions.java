package io.awscsi.efs.controller;

import io.awscsi.efs.efsutils.EfsUtilsNode;
import io.awscsi.efs.mount.EfsMountBackendKind;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Controller settings from the driver's flags.
 *
 * @param tags {@code --tags}: added to every access point (parsed by the launcher)
 * @param deleteAccessPointRootDir {@code --delete-access-point-root-dir}: DeleteVolume also removes the volume's
 *     directory when the guards allow it (off by default: data is kept, as upstream)
 * @param mountBackend {@code --efs-mount-backend}: how the controller mounts file systems for directory work
 * @param localRoot {@code --efs-local-root}: the local stand-in's root (LOCAL backend only)
 * @param workDir {@code --efs-work-dir}: where the controller mounts file systems (one mount point per file system;
 *     default {@link #DEFAULT_WORK_DIR})
 * @param zone the controller's availability zone ("" unknown): picks the mount target of cross-account mounts
 * @param efsUtils efs-utils' directories, configuration and watchdog, started before the first mount (EFS_UTILS
 *     backend); empty where something else manages efs-utils
 */
public record EfsControllerOptions(
    Map<String, String> tags,
    boolean deleteAccessPointRootDir,
    EfsMountBackendKind mountBackend,
    Path localRoot,
    Path workDir,
    String zone,
    Optional<EfsUtilsNode.Options> efsUtils) {

  /** Where upstream mounts file systems in the controller. */
  public static final Path DEFAULT_WORK_DIR = Path.of("/var/lib/csi/pv");

  public EfsControllerOptions {
    tags = Map.copyOf(tags);
    Objects.requireNonNull(mountBackend, "mountBackend");
    Objects.requireNonNull(localRoot, "localRoot");
    Objects.requireNonNull(workDir, "workDir");
    zone = zone == null ? "" : zone;
    Objects.requireNonNull(efsUtils, "efsUtils");
  }

  /** Without efs-utils management. */
  public EfsControllerOptions(Map<String, String> tags, boolean deleteAccessPointRootDir,
      EfsMountBackendKind mountBackend, Path localRoot, Path workDir, String zone) {
    this(tags, deleteAccessPointRootDir, mountBackend, localRoot, workDir, zone, Optional.empty());
  }
}
