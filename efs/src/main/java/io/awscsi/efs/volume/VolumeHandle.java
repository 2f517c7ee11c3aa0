package io.awscsi.efs.volume;

import io.awscsi.core.errors.DriverException;

/**
 * An EFS volume id in any upstream form: {@code efs:fs-x}, {@code efs:fs-x:/path}, {@code efs:fs-x::fsap-y},
 * {@code efs:fs-x:/path:fsap-y}, and the legacy forms without the {@code efs:} prefix. With an access point the
 * path is relative to the access point's root directory.
 *
 * @param fileSystemId the file system, {@code fs-} and 8 to 40 hex digits
 * @param path the clean, absolute subpath to mount; "/" when the handle has none
 * @param accessPointId the access point, or "" when the handle names none
 */
public record VolumeHandle(String fileSystemId, String path, String accessPointId) {

  private static final String EFS_PREFIX = "efs:";
  private static final String S3_FILES_PREFIX = "s3files:";

  public VolumeHandle {
    path = EfsPaths.clean(path);
    accessPointId = accessPointId == null ? "" : accessPointId;
  }

  /** The id CreateVolume returns for an access-point volume: {@code efs:fs-x::fsap-y}. */
  public static VolumeHandle ofAccessPoint(String fileSystemId, String accessPointId) {
    return new VolumeHandle(fileSystemId, EfsPaths.ROOT, accessPointId);
  }

  /** The id CreateVolume returns for a directory volume: {@code efs:fs-x:/base/dir}. */
  public static VolumeHandle ofDirectory(String fileSystemId, String directory) {
    return new VolumeHandle(fileSystemId, directory, "");
  }

  public boolean hasAccessPoint() {
    return !accessPointId.isEmpty();
  }

  /** The canonical id, always with the {@code efs:} prefix. */
  public String volumeId() {
    if (hasAccessPoint()) {
      return EFS_PREFIX + fileSystemId + ":" + (path.equals(EfsPaths.ROOT) ? "" : path) + ":" + accessPointId;
    }
    return EFS_PREFIX + fileSystemId + (path.equals(EfsPaths.ROOT) ? "" : ":" + path);
  }

  /** The mount source efs-utils expects: {@code fs-x:/path}. */
  public String mountSource() {
    return fileSystemId + ":" + path;
  }

  @Override
  public String toString() {
    return volumeId();
  }

  /**
   * Parses a volume id.
   *
   * @throws DriverException InvalidArgument on {@code volume_id} naming what is wrong
   */
  public static VolumeHandle parse(String volumeId) {
    if (volumeId.startsWith(S3_FILES_PREFIX)) {
      throw invalid(volumeId, "Amazon S3 Files volumes (s3files:) are not served by this driver; use efs: volumes");
    }
    boolean prefixed = volumeId.startsWith(EFS_PREFIX);
    String body = prefixed ? volumeId.substring(EFS_PREFIX.length()) : volumeId;
    String[] fields = body.split(":", -1);
    if (fields.length > 3) {
      throw invalid(volumeId, "expected " + (prefixed ? "efs:" : "") + "fs-id[:path[:fsap-id]], found "
          + (fields.length - 3) + " field(s) too many");
    }
    String fileSystemId = fields[0];
    if (!EfsIds.isFileSystemId(fileSystemId)) {
      throw invalid(volumeId, "\"" + fileSystemId + "\" is not a file system id (fs- and 8 to 40 hex digits)");
    }
    String path = fields.length > 1 ? fields[1] : "";
    String accessPointId = fields.length > 2 ? fields[2] : "";
    if (!accessPointId.isEmpty() && !EfsIds.isAccessPointId(accessPointId)) {
      throw invalid(volumeId, "\"" + accessPointId + "\" is not an access point id (fsap- and 8 to 40 hex digits)");
    }
    return new VolumeHandle(fileSystemId, path, accessPointId);
  }

  private static DriverException invalid(String volumeId, String why) {
    return DriverException.invalidArgument("volume_id", "volume id \"" + volumeId + "\" is not an EFS volume handle: "
        + why);
  }
}
