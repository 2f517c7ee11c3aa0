package io.awscsi.core.provider;

/** EXPAND_VOLUME on the controller. */
public interface VolumeExpander {

  /** Grows the volume to at least the required bytes; shrinking is OutOfRange. */
  ExpandResult expand(ExpandRequest request);
}
