package io.awscsi.efs.controller;

import io.awscsi.efs.efsutils.EfsUtilsNode;
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
 * @param workDir {@code --efs-work-dir}: where the controller mounts file systems (one mount point per file system;
 *     default {@link #DEFAULT_WORK_DIR})
 * @param zone the controller's availability zone ("" unknown): picks the mount target of cross-account mounts
 * @param efsUtils efs-utils' directories, configuration and watchdog, started before the first mount; empty where
 *     something else manages efs-utils (or another mount backend is given)
 */
public record EfsControllerOptions(
    Map<String, String> tags,
    boolean deleteAccessPointRootDir,
    Path workDir,
    String zone,
    Optional<EfsUtilsNode.Options> efsUtils) {

  /** Where upstream mounts file systems in the controller. */
  public static final Path DEFAULT_WORK_DIR = Path.of("/var/lib/csi/pv");

  public EfsControllerOptions {
    tags = Map.copyOf(tags);
    Objects.requireNonNull(workDir, "workDir");
    zone = zone == null ? "" : zone;
    Objects.requireNonNull(efsUtils, "efsUtils");
  }

  /** Without efs-utils management. */
  public EfsControllerOptions(Map<String, String> tags, boolean deleteAccessPointRootDir,
      Path workDir, String zone) {
    this(tags, deleteAccessPointRootDir, workDir, zone, Optional.empty());
  }
}
