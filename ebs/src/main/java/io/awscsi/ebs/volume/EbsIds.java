package io.awscsi.ebs.volume;

import io.awscsi.core.provider.IdSyntax;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The shapes of the EC2 ids the EBS driver hands out and accepts: a prefix and 8 or 17 lower-case hex digits, as EC2
 * issues them. The one check of volume, snapshot and instance (node) ids: an id of another shape names nothing EC2
 * could have made, so it is answered where the request enters and never reaches a path, a device name, a command
 * or an EC2 filter.
 */
public final class EbsIds {

  private static final Pattern VOLUME_ID = Pattern.compile("vol-(?:[0-9a-f]{8}|[0-9a-f]{17})");
  private static final Pattern SNAPSHOT_ID = Pattern.compile("snap-(?:[0-9a-f]{8}|[0-9a-f]{17})");
  /** The driver's own group snapshot ids (EC2 has no group object): the snapshots carry it as a tag. */
  private static final Pattern GROUP_SNAPSHOT_ID = Pattern.compile("groupsnap-[0-9a-f]{17}");
  private static final Pattern INSTANCE_ID = Pattern.compile("i-(?:[0-9a-f]{8}|[0-9a-f]{17})");

  /** The driver's id shapes for driver-core's edge checks. */
  public static final IdSyntax SYNTAX = new IdSyntax() {
    @Override
    public Optional<String> volumeIdProblem(String id) {
      return isVolumeId(id) ? Optional.empty() : Optional.of("an EBS volume id is vol- and 8 or 17 hex digits");
    }

    @Override
    public Optional<String> snapshotIdProblem(String id) {
      return isSnapshotId(id) ? Optional.empty()
          : Optional.of("an EBS snapshot id is snap- and 8 or 17 hex digits");
    }

    @Override
    public Optional<String> groupSnapshotIdProblem(String id) {
      return isGroupSnapshotId(id) ? Optional.empty()
          : Optional.of("an EBS group snapshot id is groupsnap- and 17 hex digits");
    }

    @Override
    public Optional<String> nodeIdProblem(String id) {
      return isInstanceId(id) ? Optional.empty()
          : Optional.of("an EBS node id is an EC2 instance id, i- and 8 or 17 hex digits");
    }
  };

  private EbsIds() {}

  public static boolean isVolumeId(String id) {
    return id != null && VOLUME_ID.matcher(id).matches();
  }

  public static boolean isSnapshotId(String id) {
    return id != null && SNAPSHOT_ID.matcher(id).matches();
  }

  public static boolean isGroupSnapshotId(String id) {
    return id != null && GROUP_SNAPSHOT_ID.matcher(id).matches();
  }

  public static boolean isInstanceId(String id) {
    return id != null && INSTANCE_ID.matcher(id).matches();
  }
}
