package io.awscsi.core.provider;

import java.util.Map;

/** PUBLISH_UNPUBLISH_VOLUME (EBS attach/detach). */
public interface VolumeAttacher {

  /** Attaches and returns the publish_context (e.g. devicePath); already attached to this node is success. */
  Map<String, String> publish(PublishRequest request);

  /** Detaches; already detached, volume gone or node gone is success. */
  void unpublish(String volumeId, String nodeId, Map<String, String> secrets);

  /** Whether the attacher honours the readonly flag (PUBLISH_READONLY). */
  default boolean supportsReadonly() {
    return false;
  }
}
