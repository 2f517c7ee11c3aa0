package io.awscsi.efs.controller;

import io.awscsi.core.errors.DriverException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Tags of the access points this driver creates: {@code efs.csi.aws.com/cluster=true} and the driver's {@code --tags}
 * (as upstream), plus two ownership tags that record the base path and the directory the driver made for the volume.
 * DeleteVolume deletes a root directory only when these tags prove it was made for exactly this access point.
 */
public final class AccessPointTags {

  public static final String CLUSTER_KEY = "efs.csi.aws.com/cluster";
  public static final String CLUSTER_VALUE = "true";
  public static final String BASE_PATH_KEY = "efs.csi.aws.com/base-path";
  public static final String DIRECTORY_KEY = "efs.csi.aws.com/directory";
  public static final String CAPACITY_KEY = "efs.csi.aws.com/capacity-bytes";

  /** How many tags of an access point the driver sets itself (cluster, base path, directory, capacity, request). */
  public static final int OWN_TAGS = 5;

  /** What EFS accepts as a tag value. */
  private static final Pattern TAG_VALUE = Pattern.compile("[\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]{0,256}");

  /** The base path and volume directory recorded when the access point was created. */
  public record Ownership(String basePath, String directory) {}

  private AccessPointTags() {}

  /**
   * Tags for a new access point.
   *
   * @param ownership recorded with the volume's capacity unless null (reusable access points outlive one volume, so
   *     they get none) or unless a path has characters EFS refuses in tag values
   */
  static Map<String, String> forVolume(Map<String, String> flagTags, Ownership ownership, long capacityBytes,
      String requestHash) {
    Map<String, String> tags = new LinkedHashMap<>();
    tags.put(CLUSTER_KEY, CLUSTER_VALUE);
    tags.putAll(flagTags);
    if (ownership != null && TAG_VALUE.matcher(ownership.basePath()).matches()
        && TAG_VALUE.matcher(ownership.directory()).matches()) {
      tags.put(BASE_PATH_KEY, ownership.basePath());
      tags.put(DIRECTORY_KEY, ownership.directory());
      tags.put(CAPACITY_KEY, Long.toString(capacityBytes));
      tags.put(RequestFingerprint.TAG, requestHash);
    }
    return tags;
  }

  /** The capacity recorded when the access point was created, if the driver recorded one. */
  static Optional<Long> capacity(Map<String, String> tags) {
    String value = tags.get(CAPACITY_KEY);
    if (value == null || !value.matches("\\d{1,19}")) {
      return Optional.empty();
    }
    try {
      return Optional.of(Long.parseLong(value));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** The ownership recorded on an access point, if the driver recorded one. */
  static Optional<Ownership> ownership(Map<String, String> tags) {
    String basePath = tags.get(BASE_PATH_KEY);
    String directory = tags.get(DIRECTORY_KEY);
    return basePath == null || directory == null ? Optional.empty() : Optional.of(new Ownership(basePath, directory));
  }

  static DriverException taggingConflict() {
    return DriverException.invalidArgument("parameters", "enableTagging is false but the driver runs with --tags; "
        + "remove enableTagging: \"false\" from the StorageClass or run the controller without --tags");
  }
}
