package io.awscsi.ebs.controller;

import io.awscsi.core.errors.DriverException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * VolumeGroupSnapshotClass parameters of CreateVolumeGroupSnapshot, parsed and checked; unknown keys are
 * InvalidArgument. {@code crashConsistency} says what to do when EC2 cannot promise one point in time for the
 * members (they are not all attached to one instance): {@code required} (the default) refuses with
 * FAILED_PRECONDITION naming the instances; {@code bestEffort} snapshots them anyway, one point in time per instance
 * and each unattached volume on its own, and tags every snapshot as best effort.
 */
record GroupSnapshotParameters(boolean bestEffort, Map<String, String> tagSpecifications,
    Map<String, String> templateFields, Map<String, String> createdForTags) {

  GroupSnapshotParameters {
    tagSpecifications = Map.copyOf(tagSpecifications);
    templateFields = Map.copyOf(templateFields);
    createdForTags = Map.copyOf(createdForTags);
  }

  /**
   * Every VolumeGroupSnapshotClass key accepted, matched case-insensitively; {@code tagSpecification_N} stands for
   * every key with the case-sensitive {@code tagSpecification} prefix; the {@code csi.storage.k8s.io/} keys are the
   * snapshotter's {@code --extra-create-metadata} for groups. docs/parameter-effects.json names a test for each.
   */
  static final Set<String> KEYS = Set.of("crashConsistency", "csi.storage.k8s.io/volumegroupsnapshot/name",
      "csi.storage.k8s.io/volumegroupsnapshot/namespace", "csi.storage.k8s.io/volumegroupsnapshotcontent/name",
      "tagSpecification_N");

  private static final Set<String> KEYS_LOWER = KEYS.stream().map(k -> k.toLowerCase(Locale.ROOT))
      .collect(Collectors.toUnmodifiableSet());

  static GroupSnapshotParameters parse(Map<String, String> parameters) {
    boolean bestEffort = false;
    Map<String, String> specs = new LinkedHashMap<>();
    Map<String, String> fields = new HashMap<>(Map.of("VolumeGroupSnapshotName", "",
        "VolumeGroupSnapshotNamespace", "", "VolumeGroupSnapshotContentName", ""));
    Map<String, String> createdFor = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : parameters.entrySet()) {
      String key = e.getKey();
      String value = e.getValue();
      if (!KEYS_LOWER.contains(key.toLowerCase(Locale.ROOT)) && !key.startsWith(VolumeParameters.TAG_PREFIX)) {
        throw DriverException.invalidArgument(key, "unknown VolumeGroupSnapshotClass parameter \"" + key + "\"");
      }
      switch (key.toLowerCase(Locale.ROOT)) {
        case "crashconsistency" -> {
          switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "required" -> bestEffort = false;
            case "besteffort" -> bestEffort = true;
            default -> throw DriverException.invalidArgument(key, "must be required or bestEffort; got \"" + value
                + "\"");
          }
        }
        case "csi.storage.k8s.io/volumegroupsnapshot/name" -> {
          fields.put("VolumeGroupSnapshotName", value);
          createdFor.put("kubernetes.io/created-for/volumegroupsnapshot/name", value);
        }
        case "csi.storage.k8s.io/volumegroupsnapshot/namespace" -> {
          fields.put("VolumeGroupSnapshotNamespace", value);
          createdFor.put("kubernetes.io/created-for/volumegroupsnapshot/namespace", value);
        }
        case "csi.storage.k8s.io/volumegroupsnapshotcontent/name" -> {
          fields.put("VolumeGroupSnapshotContentName", value);
          createdFor.put("kubernetes.io/created-for/volumegroupsnapshotcontent/name", value);
        }
        default -> {
          if (!key.startsWith(VolumeParameters.TAG_PREFIX)) {
            throw DriverException.invalidArgument(key, "unknown VolumeGroupSnapshotClass parameter \"" + key + "\"");
          }
          specs.put(key, value);
        }
      }
    }
    return new GroupSnapshotParameters(bestEffort, specs, fields, createdFor);
  }
}
