package io.awscsi.core.host;

/**
 * Every executable the driver runs on a host, with the Debian package that provides it in the container image.
 * The command runner only runs tools listed here, and a test checks that the Dockerfile installs each package, so a
 * tool cannot be used in code and forgotten in the image.
 */
public enum HostTool {
  MOUNT("mount", "mount"),
  UMOUNT("umount", "mount"),
  BLKID("blkid", "util-linux"),
  LSBLK("lsblk", "util-linux"),
  BLOCKDEV("blockdev", "util-linux"),
  LOSETUP("losetup", "mount"),
  /** Only the local emulation runs it: a group snapshot of loop devices stops writes to all of them at one instant. */
  FSFREEZE("fsfreeze", "util-linux"),
  MKFS_EXT3("mkfs.ext3", "e2fsprogs"),
  MKFS_EXT4("mkfs.ext4", "e2fsprogs"),
  MKFS_XFS("mkfs.xfs", "xfsprogs"),
  RESIZE2FS("resize2fs", "e2fsprogs"),
  DUMPE2FS("dumpe2fs", "e2fsprogs"),
  E2FSCK("e2fsck", "e2fsprogs"),
  XFS_GROWFS("xfs_growfs", "xfsprogs"),
  XFS_INFO("xfs_info", "xfsprogs"),
  XFS_REPAIR("xfs_repair", "xfsprogs"),
  STAT("stat", "coreutils"),
  NVME("nvme", "nvme-cli"),
  MOUNT_EFS("mount.efs", "amazon-efs-utils"),
  /** Long-running: the EFS node keeps it running ({@link SupervisedProcess}), it restarts the TLS proxies of mounts. */
  EFS_MOUNT_WATCHDOG("amazon-efs-mount-watchdog", "amazon-efs-utils");

  private final String executable;
  private final String imagePackage;

  HostTool(String executable, String imagePackage) {
    this.executable = executable;
    this.imagePackage = imagePackage;
  }

  /** The program name as found on PATH. */
  public String executable() {
    return executable;
  }

  /** The package of the container image that installs it. */
  public String imagePackage() {
    return imagePackage;
  }
}
