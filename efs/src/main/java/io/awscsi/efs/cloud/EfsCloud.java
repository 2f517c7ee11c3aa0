package io.awscsi.efs.cloud;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import java.util.List;
import java.util.Optional;

/**
 * The EFS operations the driver makes, in the driver's own types. Every method throws {@link AwsCallException}
 * with a classified {@link AwsCallError} when the call fails for good (after retries). Implementations are thread safe.
 */
public interface EfsCloud {

  /**
   * CreateAccessPoint. A repeated call with the same client token and arguments returns the same access point; the
   * same token with other arguments fails with {@link AwsCallError.AccessPointAlreadyExists}.
   */
  AccessPoint createAccessPoint(AccessPointSpec spec);

  /** The access point, or empty when it does not exist. */
  Optional<AccessPoint> describeAccessPoint(String accessPointId);

  /**
   * Every access point of the file system, all pages read; {@link AwsCallError.NotFound} if the file system is gone.
   */
  List<AccessPoint> listAccessPoints(String fileSystemId);

  /** Deletes the access point; one that does not exist is success. */
  void deleteAccessPoint(String accessPointId);

  /** The file system; {@link AwsCallError.NotFound} if it does not exist. */
  FileSystem describeFileSystem(String fileSystemId);

  /** Every mount target of the file system, all pages read. */
  List<MountTarget> listMountTargets(String fileSystemId);
}
