package io.awscsi.efs.cloud;

import java.util.Map;

/** What CreateAccessPoint is asked for; {@code clientToken} makes a repeated request return the same access point. */
public record AccessPointSpec(
    String fileSystemId,
    String clientToken,
    long uid,
    long gid,
    RootDirectory rootDirectory,
    Map<String, String> tags) {

  public AccessPointSpec {
    tags = Map.copyOf(tags);
  }
}
