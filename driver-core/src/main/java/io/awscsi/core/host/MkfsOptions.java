package io.awscsi.core.host;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Options for making a file system, from the volume context ({@code blockSize}, {@code inodeSize},
 * {@code bytesPerInode}, {@code numberOfInodes}, {@code ext4BigAlloc}, {@code ext4ClusterSize}, {@code ext4EncryptionSupport}) and from the driver's
 * {@code --legacy-xfs} flag. A {@code null} number means "mkfs's default".
 *
 * @param blockSize file-system block size in bytes (ext: {@code -b}, xfs: {@code -b size=})
 * @param inodeSize inode size in bytes (ext: {@code -I}, xfs: {@code -i size=})
 * @param bytesPerInode bytes-per-inode ratio (ext only: {@code -i})
 * @param numberOfInodes number of inodes (ext only: {@code -N})
 * @param ext4BigAlloc allocate in clusters ({@code -O bigalloc}, ext4 only)
 * @param ext4ClusterSize cluster size in bytes for bigalloc ({@code -C}, ext4 only)
 * @param ext4EncryptionSupport turn on the ext4 {@code encrypt} feature ({@code -O encrypt}, ext4 only), so that
 *     fscrypt can encrypt directories in the volume
 * @param xfsLegacyFormat turn off xfs features that kernels up to 5.4 cannot mount
 */
public record MkfsOptions(
    Integer blockSize,
    Integer inodeSize,
    Long bytesPerInode,
    Long numberOfInodes,
    boolean ext4BigAlloc,
    Integer ext4ClusterSize,
    boolean ext4EncryptionSupport,
    boolean xfsLegacyFormat) {

  public MkfsOptions {
    requirePositive("blockSize", blockSize);
    requirePositive("inodeSize", inodeSize);
    requirePositive("bytesPerInode", bytesPerInode);
    requirePositive("numberOfInodes", numberOfInodes);
    requirePositive("ext4ClusterSize", ext4ClusterSize);
  }

  public static MkfsOptions defaults() {
    return new MkfsOptions(null, null, null, null, false, null, false, false);
  }

  public MkfsOptions withXfsLegacyFormat(boolean legacy) {
    return new MkfsOptions(blockSize, inodeSize, bytesPerInode, numberOfInodes, ext4BigAlloc, ext4ClusterSize,
        ext4EncryptionSupport, legacy);
  }

  /**
   * The names (as volume-context keys) of options set here that the file-system type does not support; empty when
   * all are usable. Upstream rejects the same combinations.
   */
  public List<String> unsupportedFor(String fsType) {
    var type = fsType.toLowerCase(Locale.ROOT);
    var unsupported = new ArrayList<String>();
    boolean ext = type.equals("ext3") || type.equals("ext4");
    boolean xfs = type.equals("xfs");
    if (!ext && !xfs) {
      if (blockSize != null) {
        unsupported.add("blockSize");
      }
      if (inodeSize != null) {
        unsupported.add("inodeSize");
      }
    }
    if (!ext) {
      if (bytesPerInode != null) {
        unsupported.add("bytesPerInode");
      }
      if (numberOfInodes != null) {
        unsupported.add("numberOfInodes");
      }
    }
    if (!type.equals("ext4")) {
      if (ext4BigAlloc) {
        unsupported.add("ext4BigAlloc");
      }
      if (ext4ClusterSize != null) {
        unsupported.add("ext4ClusterSize");
      }
      if (ext4EncryptionSupport) {
        unsupported.add("ext4EncryptionSupport");
      }
    }
    return unsupported;
  }

  private static void requirePositive(String name, Number value) {
    if (value != null && value.longValue() <= 0) {
      throw new IllegalArgumentException(name + " must be a positive number, was " + value);
    }
  }
}
