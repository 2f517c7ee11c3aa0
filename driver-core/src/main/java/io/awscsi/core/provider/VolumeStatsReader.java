package io.awscsi.core.provider;

import java.nio.file.Path;

/** GET_VOLUME_STATS. */
public interface VolumeStatsReader {

  /** NotFound when {@code volumePath} is not a published path of this volume. */
  VolumeStats stats(String volumeId, Path volumePath);
}
