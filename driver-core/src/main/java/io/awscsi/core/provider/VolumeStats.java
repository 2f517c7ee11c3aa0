package io.awscsi.core.provider;

/** NodeGetVolumeStats: file systems report bytes and inodes; block volumes only their size in bytes. */
public sealed interface VolumeStats {

  record FileSystem(long totalBytes, long usedBytes, long availableBytes, long totalInodes, long usedInodes,
      long availableInodes) implements VolumeStats {}

  record Block(long totalBytes) implements VolumeStats {}

  /** Usage not known yet (e.g. computed in the background); the CO sees unit UNKNOWN. */
  record Unknown() implements VolumeStats {}
}
