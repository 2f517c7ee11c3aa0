package io.awscsi.ebs.controller;

/**
 * Told what the controller did once EC2 confirms it, so a local backend (loop devices standing in for EBS in a
 * single-host run) can mirror it. Calls may repeat for the same state (a retried publish of an attached volume) and
 * must be idempotent; they must not throw.
 */
public interface AttachmentObserver {

  /** Does nothing: the default outside local runs. */
  AttachmentObserver NONE = new AttachmentObserver() {};

  /** The volume reached {@code attached} on the node as {@code devicePath}. */
  default void attached(String volumeId, String nodeId, long sizeBytes, String devicePath) {}

  /** The volume is detached from the node. */
  default void detached(String volumeId, String nodeId) {}

  /** The volume's new size is usable (its modification reached optimizing or completed). */
  default void resized(String volumeId, long sizeBytes) {}

  /** The volume was deleted. */
  default void deleted(String volumeId) {}

  /** A snapshot of the volume was created (its content is the volume's content now). */
  default void snapshotCreated(String snapshotId, String sourceVolumeId) {}

  /** A volume was created from a snapshot or cloned from a volume ({@code sourceId} is a snap- or vol- id). */
  default void createdFrom(String volumeId, String sourceId) {}

  /** The snapshot was deleted. */
  default void snapshotDeleted(String snapshotId) {}
}
