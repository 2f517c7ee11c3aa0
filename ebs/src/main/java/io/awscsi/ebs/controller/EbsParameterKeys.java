package io.awscsi.ebs.controller;

import java.util.Map;
import java.util.Set;

/**
 * The keys each EBS parameter parser accepts, by the kind of class they come in, for the table of parameter effects
 * (docs/parameter-effects.json) and its completeness test. Each set is declared by its parser, next to the code that
 * reads it; this only gathers them.
 */
public final class EbsParameterKeys {

  /** Kind of the table: the StorageClass of CreateVolume. */
  public static final String STORAGE_CLASS = "ebs-storageclass";
  /** Kind: VolumeAttributesClass mutable parameters at ControllerModifyVolume. */
  public static final String VOLUME_ATTRIBUTES_CLASS = "ebs-volumeattributesclass";
  /** Kind: VolumeAttributesClass mutable parameters at CreateVolume. */
  public static final String VOLUME_ATTRIBUTES_CLASS_AT_CREATE = "ebs-volumeattributesclass-create";
  /** Kind: the VolumeSnapshotClass of CreateSnapshot. */
  public static final String VOLUME_SNAPSHOT_CLASS = "ebs-volumesnapshotclass";
  /** Kind: the VolumeGroupSnapshotClass of CreateVolumeGroupSnapshot. */
  public static final String VOLUME_GROUP_SNAPSHOT_CLASS = "ebs-volumegroupsnapshotclass";

  private EbsParameterKeys() {}

  /** Every accepted key, by kind. */
  public static Map<String, Set<String>> byKind() {
    return Map.of(STORAGE_CLASS, VolumeParameters.STORAGE_CLASS_KEYS,
        VOLUME_ATTRIBUTES_CLASS, EbsVolumeResizer.MUTABLE_KEYS,
        VOLUME_ATTRIBUTES_CLASS_AT_CREATE, VolumeParameters.MUTABLE_KEYS_AT_CREATE,
        VOLUME_SNAPSHOT_CLASS, SnapshotParameters.KEYS,
        VOLUME_GROUP_SNAPSHOT_CLASS, GroupSnapshotParameters.KEYS);
  }
}
