package io.awscsi.core.provider;

/** CSI access modes (VolumeCapability.AccessMode.Mode) without the proto's UNKNOWN. */
public enum AccessMode {
  SINGLE_NODE_WRITER,
  SINGLE_NODE_READER_ONLY,
  MULTI_NODE_READER_ONLY,
  MULTI_NODE_SINGLE_WRITER,
  MULTI_NODE_MULTI_WRITER,
  SINGLE_NODE_SINGLE_WRITER,
  SINGLE_NODE_MULTI_WRITER;

  public boolean multiNode() {
    return name().startsWith("MULTI_NODE");
  }

  public boolean readOnly() {
    return this == SINGLE_NODE_READER_ONLY || this == MULTI_NODE_READER_ONLY;
  }
}
