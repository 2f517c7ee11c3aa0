package io.awscsi.core.lifecycle;

/**
 * The node's volume states of the CSI spec's lifecycle figure (the variant with NodeStage): NODE_READY is published to
 * this node (ControllerPublishVolume is the controller's business; the node takes it as done). UNKNOWN is a volume this
 * process has not seen since it started: every call proceeds and the provider's own checks of the host decide.
 */
public enum VolumeState {
  UNKNOWN,
  NODE_READY,
  VOL_READY,
  PUBLISHED
}
