package io.awscsi.efs.volume;

/**
 * Volume-context keys the controller writes and the node reads (upstream's names; the node matches them
 * case-insensitively).
 */
public final class VolumeContextKeys {

  /** "true"/"false", default true: mount with TLS. */
  public static final String ENCRYPT_IN_TRANSIT = "encryptInTransit";
  /** The mount target IP to mount from (cross-account, or a static PV). */
  public static final String MOUNT_TARGET_IP = "mounttargetip";
  /** JSON object from availability zone to mount target IP; the node picks its own zone's. */
  public static final String MOUNT_TARGET_IP_MAP = "mounttargetipmap";
  /** "true": efs-utils resolves the cross-account mount target by DNS in the node's zone. */
  public static final String CROSS_ACCOUNT = "crossaccount";
  /** Written by the external-provisioner; ignored. */
  public static final String PROVISIONER_IDENTITY = "storage.kubernetes.io/csiProvisionerIdentity";

  private VolumeContextKeys() {}
}
