package io.awscsi.core.provider;

/** MODIFY_VOLUME (VolumeAttributesClass). */
public interface VolumeModifier {

  /** Applies the mutable parameters; unknown keys are InvalidArgument naming them. */
  void modify(ModifyRequest request);
}
