package io.awscsi.core.provider;

/** LIST_VOLUMES, LIST_VOLUMES_PUBLISHED_NODES and GET_VOLUME. */
public interface VolumeLister {

  /** {@code maxEntries} 0 means no limit; an invalid token is Aborted. */
  Page<PublishedVolume> listVolumes(int maxEntries, String startingToken);

  /** NotFound when the volume does not exist. */
  PublishedVolume getVolume(String volumeId);
}
