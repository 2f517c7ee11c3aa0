package io.awscsi.core.provider;

/** What a new volume is made from. */
public sealed interface VolumeSource {

  record Empty() implements VolumeSource {}

  record FromSnapshot(String snapshotId) implements VolumeSource {}

  record FromVolume(String volumeId) implements VolumeSource {}
}
