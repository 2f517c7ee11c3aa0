package io.awscsi.ebs.cloud;

import io.awscsi.aws.call.AwsAction;

/**
 * The EC2 API actions the driver calls. EC2 throttles each action with its own token bucket, larger for the
 * non-mutating Describe actions than for the mutating ones, so limits and retries are kept per action.
 */
public enum Ec2Action implements AwsAction {
  CREATE_VOLUME("CreateVolume", true),
  COPY_VOLUMES("CopyVolumes", true),
  DELETE_VOLUME("DeleteVolume", true),
  ATTACH_VOLUME("AttachVolume", true),
  DETACH_VOLUME("DetachVolume", true),
  MODIFY_VOLUME("ModifyVolume", true),
  CREATE_TAGS("CreateTags", true),
  DELETE_TAGS("DeleteTags", true),
  CREATE_SNAPSHOT("CreateSnapshot", true),
  CREATE_SNAPSHOTS("CreateSnapshots", true),
  DELETE_SNAPSHOT("DeleteSnapshot", true),
  ENABLE_FAST_SNAPSHOT_RESTORES("EnableFastSnapshotRestores", true),
  LOCK_SNAPSHOT("LockSnapshot", true),
  DESCRIBE_VOLUMES("DescribeVolumes", false),
  DESCRIBE_INSTANCES("DescribeInstances", false),
  DESCRIBE_INSTANCE_TYPES("DescribeInstanceTypes", false),
  DESCRIBE_SNAPSHOTS("DescribeSnapshots", false),
  DESCRIBE_VOLUMES_MODIFICATIONS("DescribeVolumesModifications", false),
  DESCRIBE_VOLUME_STATUS("DescribeVolumeStatus", false),
  DESCRIBE_AVAILABILITY_ZONES("DescribeAvailabilityZones", false);

  private final String apiName;
  private final boolean mutating;

  Ec2Action(String apiName, boolean mutating) {
    this.apiName = apiName;
    this.mutating = mutating;
  }

  /** The action's name as EC2 and the upstream metrics spell it (e.g. {@code AttachVolume}). */
  @Override
  public String apiName() {
    return apiName;
  }

  @Override
  public boolean mutating() {
    return mutating;
  }
}
