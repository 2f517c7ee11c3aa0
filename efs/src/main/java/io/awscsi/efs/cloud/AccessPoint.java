package io.awscsi.efs.cloud;

import java.util.Map;

/**
 * An EFS access point as the driver needs it.
 *
 * @param uid the enforced POSIX user id, or {@link #NO_ID} when the access point enforces none
 * @param gid the enforced POSIX group id, or {@link #NO_ID}
 * @param rootDirectory the directory the access point exposes, with the ownership EFS gives it on first use
 * @param tags every tag, key to value
 */
public record AccessPoint(
    String accessPointId,
    String fileSystemId,
    String clientToken,
    long uid,
    long gid,
    RootDirectory rootDirectory,
    Map<String, String> tags,
    String lifeCycleState) {

  public static final long NO_ID = -1;

  public AccessPoint {
    clientToken = clientToken == null ? "" : clientToken;
    tags = Map.copyOf(tags);
    lifeCycleState = lifeCycleState == null ? "" : lifeCycleState;
  }

  public boolean enforcesUser() {
    return gid != NO_ID;
  }
}
