package io.awscsi.core.lifecycle;

/**
 * The volume states of the CSI spec's lifecycle figure (the variant with NodeStage). UNKNOWN is a volume this process
 * has not seen since it started: every call proceeds and the provider's own checks of the host decide.
 */
public enum VolumeState {
  UNKNOWN,
  CREATED,
  NODE_READY,
  VOL_READY,
  PUBLISHED
}
