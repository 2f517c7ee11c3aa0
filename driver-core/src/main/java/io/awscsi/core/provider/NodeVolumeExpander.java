package io.awscsi.core.provider;

/** EXPAND_VOLUME on the node: grow the file system to the device size. */
public interface NodeVolumeExpander {

  /** Returns the capacity in bytes after the resize. */
  long expand(NodeExpandRequest request);
}
