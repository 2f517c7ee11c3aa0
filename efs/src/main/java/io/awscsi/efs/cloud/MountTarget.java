package io.awscsi.efs.cloud;

/** A mount target: the NFS endpoint of a file system in one availability zone. */
public record MountTarget(String mountTargetId, String fileSystemId, String availabilityZone, String ipAddress,
    String lifeCycleState) {

  public boolean available() {
    return "available".equals(lifeCycleState);
  }
}
