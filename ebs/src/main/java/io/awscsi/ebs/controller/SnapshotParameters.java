package io.awscsi.ebs.controller;

import io.awscsi.core.errors.DriverException;
import io.awscsi.ebs.cloud.SnapshotLock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** VolumeSnapshotClass parameters of CreateSnapshot, parsed and checked; unknown keys are InvalidArgument. */
record SnapshotParameters(List<String> fastRestoreZones, SnapshotLock lock, String outpostArn,
    Map<String, String> tagSpecifications, Map<String, String> templateFields, Map<String, String> createdForTags) {

  SnapshotParameters {
    fastRestoreZones = List.copyOf(fastRestoreZones);
    tagSpecifications = Map.copyOf(tagSpecifications);
    templateFields = Map.copyOf(templateFields);
    createdForTags = Map.copyOf(createdForTags);
  }

  /**
   * Every VolumeSnapshotClass key CreateSnapshot accepts, spelt as upstream documents it (matched case-insensitively);
   * {@code tagSpecification_N} stands for every key with the case-sensitive {@code tagSpecification} prefix, the
   * {@code csi.storage.k8s.io/} keys are the snapshotter's {@code --extra-create-metadata}. Any other key is refused
   * before the switch below reads it (docs/parameter-effects.json must name a test for each).
   */
  static final Set<String> KEYS = Set.of("fastSnapshotRestoreAvailabilityZones", "lockMode", "lockDuration",
      "lockExpirationDate", "lockCoolOffPeriod", "outpostArn", "csi.storage.k8s.io/volumesnapshot/name",
      "csi.storage.k8s.io/volumesnapshot/namespace", "csi.storage.k8s.io/volumesnapshotcontent/name",
      "tagSpecification_N");

  private static final Set<String> KEYS_LOWER = KEYS.stream().map(k -> k.toLowerCase(Locale.ROOT))
      .collect(java.util.stream.Collectors.toUnmodifiableSet());

  private static DriverException unknownKey(String key) {
    return DriverException.invalidArgument(key, "unknown VolumeSnapshotClass parameter \"" + key + "\"");
  }

  static SnapshotParameters parse(Map<String, String> parameters) {
    List<String> zones = new ArrayList<>();
    String lockMode = "";
    int lockDays = 0;
    Instant lockUntil = null;
    int coolOffHours = 0;
    String outpostArn = "";
    Map<String, String> specs = new LinkedHashMap<>();
    Map<String, String> fields = new HashMap<>(Map.of("VolumeSnapshotName", "", "VolumeSnapshotNamespace", "",
        "VolumeSnapshotContentName", ""));
    Map<String, String> createdFor = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : parameters.entrySet()) {
      String key = e.getKey();
      String value = e.getValue();
      if (!KEYS_LOWER.contains(key.toLowerCase(Locale.ROOT)) && !key.startsWith(VolumeParameters.TAG_PREFIX)) {
        throw unknownKey(key);
      }
      switch (key.toLowerCase(Locale.ROOT)) {
        case "fastsnapshotrestoreavailabilityzones" -> {
          for (String z : value.split(",")) {
            if (!z.isBlank()) {
              zones.add(z.trim());
            }
          }
          if (zones.isEmpty()) {
            throw DriverException.invalidArgument(key, "must list at least one availability zone");
          }
        }
        case "lockmode" -> {
          lockMode = value.trim().toLowerCase(Locale.ROOT);
          if (!lockMode.equals("governance") && !lockMode.equals("compliance")) {
            throw DriverException.invalidArgument(key, "must be governance or compliance; got \"" + value + "\"");
          }
        }
        case "lockduration" -> {
          lockDays = VolumeParameters.positive(key, value);
          if (lockDays > 36_500) {
            throw DriverException.invalidArgument(key, "must be 1 to 36500 days; got " + lockDays);
          }
        }
        case "lockexpirationdate" -> {
          try {
            lockUntil = OffsetDateTime.parse(value.trim()).toInstant();
          } catch (DateTimeParseException ex) {
            throw DriverException.invalidArgument(key, "must be an RFC 3339 date such as 2030-01-02T15:04:05Z; got \""
                + value + "\"");
          }
        }
        case "lockcooloffperiod" -> {
          coolOffHours = VolumeParameters.positive(key, value);
          if (coolOffHours > 72) {
            throw DriverException.invalidArgument(key, "must be 1 to 72 hours; got " + coolOffHours);
          }
        }
        case "outpostarn" -> {
          // Upstream: arn.IsARN(value) (prefix "arn:" and at least 5 colons), else InvalidArgument.
          if (!value.startsWith("arn:") || value.chars().filter(c -> c == ':').count() < 5) {
            throw DriverException.invalidArgument(key, "Invalid parameter value " + value + " is not a valid arn");
          }
          outpostArn = value;
        }
        case "csi.storage.k8s.io/volumesnapshot/name" -> {
          fields.put("VolumeSnapshotName", value);
          createdFor.put("kubernetes.io/created-for/volumesnapshot/name", value);
        }
        case "csi.storage.k8s.io/volumesnapshot/namespace" -> {
          fields.put("VolumeSnapshotNamespace", value);
          createdFor.put("kubernetes.io/created-for/volumesnapshot/namespace", value);
        }
        case "csi.storage.k8s.io/volumesnapshotcontent/name" -> {
          fields.put("VolumeSnapshotContentName", value);
          createdFor.put("kubernetes.io/created-for/volumesnapshotcontent/name", value);
        }
        default -> {
          // Upstream: strings.HasPrefix(key, "tagSpecification") on the key as written (case-sensitive).
          if (!key.startsWith(VolumeParameters.TAG_PREFIX)) {
            throw unknownKey(key);
          }
          specs.put(key, value);
        }
      }
    }
    SnapshotLock lock = null;
    boolean lockDetails = lockDays > 0 || lockUntil != null || coolOffHours > 0;
    if (lockMode.isEmpty() && lockDetails) {
      throw DriverException.invalidArgument("lockMode", "lockDuration, lockExpirationDate and lockCoolOffPeriod "
          + "need lockMode (governance or compliance)");
    }
    if (!lockMode.isEmpty()) {
      if ((lockDays > 0) == (lockUntil != null)) {
        throw DriverException.invalidArgument("lockDuration", "a snapshot lock needs exactly one of lockDuration "
            + "and lockExpirationDate");
      }
      if (coolOffHours > 0 && !lockMode.equals("compliance")) {
        throw DriverException.invalidArgument("lockCoolOffPeriod", "only compliance locks have a cool-off period");
      }
      lock = new SnapshotLock(lockMode, lockDays, lockUntil, coolOffHours);
    }
    return new SnapshotParameters(zones, lock, outpostArn, specs, fields, createdFor);
  }
}
