package io.awscsi.ebs.controller;

import java.util.List;

/**
 * Keys of the volume context that CreateVolume hands to the node, spelled as upstream
 * so PVs created by either driver stage the same way.
 */
public final class VolumeContextKeys {

  public static final String FS_TYPE = "csi.storage.k8s.io/fstype";
  public static final String BLOCK_SIZE = "blocksize";
  public static final String INODE_SIZE = "inodesize";
  public static final String BYTES_PER_INODE = "bytesperinode";
  public static final String NUMBER_OF_INODES = "numberofinodes";
  public static final String EXT4_BIG_ALLOC = "ext4bigalloc";
  public static final String EXT4_CLUSTER_SIZE = "ext4clustersize";
  public static final String EXT4_ENCRYPTION_SUPPORT = "ext4encryptionsupport";

  /**
   * {@code "true"} when the StorageClass set {@code blockAttachUntilInitialized}: ControllerPublishVolume reads it
   * back to hold a restored volume's attach until EC2 reports it initialized (upstream's key, lower case).
   */
  public static final String BLOCK_ATTACH_UNTIL_INITIALIZED = "blockattachuntilinitialized";

  /** The mkfs options, in the order they are validated. */
  public static final List<String> FORMAT_OPTIONS = List.of(BLOCK_SIZE, INODE_SIZE, BYTES_PER_INODE,
      NUMBER_OF_INODES, EXT4_BIG_ALLOC, EXT4_CLUSTER_SIZE, EXT4_ENCRYPTION_SUPPORT);

  private VolumeContextKeys() {}
}
