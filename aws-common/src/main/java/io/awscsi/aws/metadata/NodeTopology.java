package io.awscsi.aws.metadata;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The topology segments NodeGetInfo reports, as upstream does: for EBS the driver's own zone key, the well-known zone
 * key and the OS (plus region, partition, account and outpost keys on an Outpost); for EFS the well-known zone key
 * only.
 */
public final class NodeTopology {

  public static final String EBS_DRIVER_NAME = "ebs.csi.aws.com";
  public static final String EFS_DRIVER_NAME = "efs.csi.aws.com";

  /** The zone key of accessible_topology and the Node label of the same name. */
  public static final String WELL_KNOWN_ZONE_KEY = "topology.kubernetes.io/zone";
  /**
   * A zone id ({@code use1-az1}): the Node label EKS sets, and a key the EBS controller accepts in requisite topology
   * (never reported).
   */
  public static final String ZONE_ID_KEY = "topology.k8s.aws/zone-id";
  public static final String OS_KEY = "kubernetes.io/os";
  /** This driver runs on Linux only (upstream reports Go's runtime.GOOS). */
  public static final String OS_LINUX = "linux";

  public static final String EBS_ZONE_KEY = "topology." + EBS_DRIVER_NAME + "/zone";
  public static final String EBS_REGION_KEY = "topology." + EBS_DRIVER_NAME + "/region";
  public static final String EBS_PARTITION_KEY = "topology." + EBS_DRIVER_NAME + "/partition";
  public static final String EBS_ACCOUNT_ID_KEY = "topology." + EBS_DRIVER_NAME + "/account-id";
  public static final String EBS_OUTPOST_ID_KEY = "topology." + EBS_DRIVER_NAME + "/outpost-id";

  private NodeTopology() {}

  /**
   * The four EBS segments that place a volume or node on {@code outpost}, as upstream reports them from NodeGetInfo
   * and CreateVolume alike (the ARN is rebuilt from them on the controller).
   */
  public static Map<String, String> outpostSegments(OutpostArn outpost) {
    return Map.of(
        EBS_REGION_KEY, outpost.region(),
        EBS_PARTITION_KEY, outpost.partition(),
        EBS_ACCOUNT_ID_KEY, outpost.accountId(),
        EBS_OUTPOST_ID_KEY, outpost.outpostId());
  }

  /**
   * The segments for {@code driverName} on the instance {@code metadata} describes.
   *
   * @throws IllegalArgumentException for a driver name other than {@value #EBS_DRIVER_NAME} and {@value
   *     #EFS_DRIVER_NAME}
   */
  public static Map<String, String> segments(InstanceMetadata metadata, String driverName) {
    Map<String, String> segments = new LinkedHashMap<>();
    switch (driverName) {
      case EBS_DRIVER_NAME -> {
        segments.put(EBS_ZONE_KEY, metadata.availabilityZone());
        segments.put(WELL_KNOWN_ZONE_KEY, metadata.availabilityZone());
        segments.put(OS_KEY, OS_LINUX);
        metadata.outpost().ifPresent(outpost -> segments.putAll(outpostSegments(outpost)));
      }
      case EFS_DRIVER_NAME -> segments.put(WELL_KNOWN_ZONE_KEY, metadata.availabilityZone());
      default ->
          throw new IllegalArgumentException(
              "unknown driver name '" + driverName + "'; expected " + EBS_DRIVER_NAME + " or " + EFS_DRIVER_NAME);
    }
    return Map.copyOf(segments);
  }
}
