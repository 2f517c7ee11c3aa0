package io.awscsi.core.provider;

import java.nio.file.Path;

/** STAGE_UNSTAGE_VOLUME: the per-node, per-volume step (EBS: find the device, format, mount at the staging path). */
public interface VolumeStager {

  /** Already staged as asked is success; staged differently is AlreadyExists. */
  void stage(StageRequest request);

  /** Already unstaged is success; a corrupted mount is unmounted, never reported as success while mounted. */
  void unstage(String volumeId, Path stagingPath);
}
