package io.awscsi.efs.cloud;

/**
 * An access point's root directory and the owner and mode EFS creates it with when it does not exist yet.
 *
 * @param path the clean absolute path inside the file system
 * @param ownerUid owner of a newly created directory, or {@link AccessPoint#NO_ID} when no creation info is set
 * @param ownerGid group of a newly created directory, or {@link AccessPoint#NO_ID}
 * @param permissions octal mode such as "0755", or "" when no creation info is set
 */
public record RootDirectory(String path, long ownerUid, long ownerGid, String permissions) {

  public RootDirectory {
    permissions = permissions == null ? "" : permissions;
  }

  public boolean hasCreationInfo() {
    return !permissions.isEmpty();
  }
}
