package io.awscsi.efs.cloud;

/**
 * An EFS file system.
 *
 * @param availabilityZone the zone of a One Zone file system, "" for a regional one
 */
public record FileSystem(String fileSystemId, String availabilityZone, String lifeCycleState) {

  public boolean oneZone() {
    return !availabilityZone.isEmpty();
  }
}
