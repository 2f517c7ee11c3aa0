package io.awscsi.core.provider;

import java.nio.file.Path;

/** NodePublishVolume / NodeUnpublishVolume: every node provider has one. */
public interface VolumePublisher {

  /** Creates the target if missing and mounts; already published as asked is success. */
  void publish(NodePublishRequest request);

  /** Unmounts and removes the target; repeated calls succeed. */
  void unpublish(String volumeId, Path targetPath);
}
