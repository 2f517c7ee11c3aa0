package io.awscsi.efs.controller;

import io.awscsi.core.errors.DriverException;
import io.awscsi.efs.volume.EfsIds;
import io.awscsi.efs.volume.EfsPaths;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The StorageClass parameters of an EFS volume, parsed and checked. Keys are matched exactly as upstream does; an
 * unknown key is ignored with a WARN line (upstream ignores it), an invalid value is InvalidArgument naming it.
 *
 * @param directoryPerms octal mode of the volume's directory; "" when not set
 * @param uid fixed owner, or {@link #UNSET}
 * @param gid fixed group, or {@link #UNSET}
 * @param gidRange ids the allocator hands out when uid or gid is not fixed
 * @param basePath clean absolute parent of the volume directories ("/" by default)
 * @param subPathPattern the directory template, "" when not set (the PV name is used)
 * @param pvcName from {@code csi.storage.k8s.io/pvc/name}, "" when the provisioner did not pass it
 */
public record EfsVolumeParameters(
    ProvisioningMode mode,
    String fileSystemId,
    String directoryPerms,
    long uid,
    long gid,
    GidRange gidRange,
    String basePath,
    String subPathPattern,
    boolean ensureUniqueDirectory,
    boolean reuseAccessPoint,
    String az,
    boolean enforceZoneAffinity,
    boolean enableTagging,
    String pvcName,
    String pvcNamespace,
    String pvName) {

  public static final long UNSET = -1;
  /** EFS POSIX ids are unsigned 32-bit. */
  static final long MAX_POSIX_ID = 4294967295L;
  /** Limits of an access point root path (EFS API; upstream validatePathRequirements). */
  static final int MAX_ROOT_PATH_LENGTH = 100;
  static final int MAX_ROOT_PATH_SLASHES = 5;
  /** Room a shortened volume name needs: a few characters of the name, a dash and 16 hex digits of its hash. */
  static final int SHORTENED_NAME_MINIMUM = 24;
  /** The mode of an efs-dir directory when directoryPerms is not set (what the directory mode proposal uses). */
  static final String DEFAULT_DIRECTORY_PERMS = "0777";

  static final String PROVISIONING_MODE = "provisioningMode";
  static final String FILE_SYSTEM_ID = "fileSystemId";
  static final String DIRECTORY_PERMS = "directoryPerms";
  static final String UID = "uid";
  static final String GID = "gid";
  static final String GID_RANGE_START = "gidRangeStart";
  static final String GID_RANGE_END = "gidRangeEnd";
  static final String BASE_PATH = "basePath";
  static final String SUB_PATH_PATTERN = "subPathPattern";
  static final String ENSURE_UNIQUE_DIRECTORY = "ensureUniqueDirectory";
  static final String REUSE_ACCESS_POINT = "reuseAccessPoint";
  static final String AZ = "az";
  static final String ENFORCE_ZONE_AFFINITY = "enforceZoneAffinity";
  static final String ENABLE_TAGGING = "enableTagging";
  static final String PVC_NAME = "csi.storage.k8s.io/pvc/name";
  /** The CreateVolume field the volume name comes in. */
  static final String VOLUME_NAME = "name";
  static final String PVC_NAMESPACE = "csi.storage.k8s.io/pvc/namespace";
  static final String PV_NAME = "csi.storage.k8s.io/pv/name";

  /**
   * Every StorageClass key CreateVolume reads (exact, as upstream); any other is ignored with a WARN line, as upstream.
   * docs/parameter-effects.json must name a test for each.
   */
  public static final Set<String> KEYS = Set.of(PROVISIONING_MODE, FILE_SYSTEM_ID, FileSystemIdRefs.CONFIG_REF,
      FileSystemIdRefs.SECRET_REF, DIRECTORY_PERMS, UID, GID, GID_RANGE_START, GID_RANGE_END, BASE_PATH,
      SUB_PATH_PATTERN, ENSURE_UNIQUE_DIRECTORY, REUSE_ACCESS_POINT, AZ, ENFORCE_ZONE_AFFINITY, ENABLE_TAGGING,
      PVC_NAME, PVC_NAMESPACE, PV_NAME);
  private static final org.apache.logging.log4j.Logger LOG =
      org.apache.logging.log4j.LogManager.getLogger(EfsVolumeParameters.class);
  private static final Pattern OCTAL_MODE = Pattern.compile("[0-7]{3,4}");
  /** Upstream parses ids with strconv.ParseInt(v, 10, 64), which takes a leading "+" too. */
  private static final Pattern DECIMAL = Pattern.compile("\\+?\\d{1,10}");

  /**
   * Parses the parameters of a CreateVolume request.
   *
   * @param clusterTags the {@code --tags} of the driver, which {@code enableTagging: "false"} contradicts
   */
  public static EfsVolumeParameters parse(Map<String, String> parameters, Map<String, String> clusterTags) {
    return parse(parameters, clusterTags, FileSystemIdRefs.Reader.NONE);
  }

  /**
   * Parses the parameters; a file system id given by reference ({@code fileSystemIdConfigRef},
   * {@code fileSystemIdSecretRef}) is read through {@code refs} after every other parameter checked out.
   */
  static EfsVolumeParameters parse(Map<String, String> parameters, Map<String, String> clusterTags,
      FileSystemIdRefs.Reader refs) {
    // Upstream (pkg/driver/controller.go CreateVolume) reads the keys it knows and ignores every other one, so a class
    // with an extra or misspelt key provisions there; it provisions here too, with one WARN line naming the key.
    for (String key : new TreeSet<>(parameters.keySet())) {
      if (!KEYS.contains(key)) {
        LOG.warn("StorageClass parameter {} is not an efs.csi.aws.com parameter and is ignored (as upstream); "
            + "supported: {}", DirectoryNames.quoted(key), String.join(", ", new TreeSet<>(KEYS)));
      }
    }
    ProvisioningMode mode = mode(parameters.get(PROVISIONING_MODE));
    List<String> given = Stream.of(FILE_SYSTEM_ID, FileSystemIdRefs.CONFIG_REF, FileSystemIdRefs.SECRET_REF)
        .filter(parameters::containsKey).toList();
    if (given.size() != 1) {
      throw invalid((given.isEmpty() ? "missing " + FILE_SYSTEM_ID : "conflicting " + String.join(" and ", given))
          + ": set exactly one of " + FILE_SYSTEM_ID + ", " + FileSystemIdRefs.CONFIG_REF + " or "
          + FileSystemIdRefs.SECRET_REF);
    }
    FileSystemIdRefs.Ref ref = given.getFirst().equals(FILE_SYSTEM_ID) ? null
        : FileSystemIdRefs.parse(given.getFirst(), parameters.get(given.getFirst()));
    String fileSystemId = ref != null ? "" : required(parameters, FILE_SYSTEM_ID).strip();
    if (ref == null && !EfsIds.isFileSystemId(fileSystemId)) {
      throw invalid(FILE_SYSTEM_ID + " \"" + fileSystemId + "\" is not a file system id (fs- and 8 to 40 hex digits)");
    }
    String perms = parameters.getOrDefault(DIRECTORY_PERMS, "");
    if (perms.isEmpty()) {
      if (mode == ProvisioningMode.ACCESS_POINT) {
        throw invalid(DIRECTORY_PERMS + " is required with " + PROVISIONING_MODE + " efs-ap (e.g. \"700\"): EFS "
            + "creates the access point's root directory with this mode");
      }
      perms = DEFAULT_DIRECTORY_PERMS;
    } else if (!OCTAL_MODE.matcher(perms).matches()) {
      throw invalid(DIRECTORY_PERMS + " \"" + perms + "\" is not an octal mode such as 700 or 0755");
    }
    long uid = posixId(parameters, UID);
    long gid = posixId(parameters, GID);
    GidRange range = gidRange(parameters, mode);

    String basePath = parameters.getOrDefault(BASE_PATH, "");
    if (EfsPaths.climbs(basePath)) {
      throw invalid(BASE_PATH + " " + DirectoryNames.quoted(basePath) + " must not contain \"..\"");
    }
    DirectoryNames.pathProblem(EfsPaths.clean(basePath)).ifPresent(problem -> {
      throw invalid(BASE_PATH + " " + DirectoryNames.quoted(basePath) + " " + problem);
    });
    String pattern = parameters.getOrDefault(SUB_PATH_PATTERN, "");
    if (!pattern.isEmpty()) {
      SubPathPattern.validate(pattern);
    }
    // Object names from the provisioner: each must be one directory name wherever the pattern puts it.
    for (String key : List.of(PVC_NAME, PVC_NAMESPACE, PV_NAME)) {
      String value = parameters.getOrDefault(key, "");
      if (!value.isEmpty()) {
        DirectoryNames.componentProblem(value).ifPresent(problem -> {
          throw invalid(key + " " + DirectoryNames.quoted(value) + " " + problem);
        });
      }
    }
    boolean reuse = bool(parameters, REUSE_ACCESS_POINT, false);
    if (reuse && mode == ProvisioningMode.DIRECTORY) {
      throw invalid(REUSE_ACCESS_POINT + " needs " + PROVISIONING_MODE + " efs-ap; efs-dir volumes have no access "
          + "point");
    }
    boolean tagging = bool(parameters, ENABLE_TAGGING, true);
    if (!tagging && !clusterTags.isEmpty()) {
      throw AccessPointTags.taggingConflict();
    }
    EfsVolumeParameters parsed = new EfsVolumeParameters(mode, fileSystemId, perms, uid, gid, range,
        EfsPaths.clean(basePath), pattern, bool(parameters, ENSURE_UNIQUE_DIRECTORY, true), reuse,
        parameters.getOrDefault(AZ, "").strip(), bool(parameters, ENFORCE_ZONE_AFFINITY, false), tagging,
        parameters.getOrDefault(PVC_NAME, ""), parameters.getOrDefault(PVC_NAMESPACE, ""),
        parameters.getOrDefault(PV_NAME, ""));
    if (reuse && parsed.pvcName().isEmpty()) {
      throw invalid(REUSE_ACCESS_POINT + " needs the PVC name (" + PVC_NAME + "); run csi-provisioner with "
          + "--extra-create-metadata");
    }
    return ref == null ? parsed : parsed.withFileSystemId(FileSystemIdRefs.resolve(ref, refs));
  }

  private EfsVolumeParameters withFileSystemId(String id) {
    return new EfsVolumeParameters(mode, id, directoryPerms, uid, gid, gidRange, basePath, subPathPattern,
        ensureUniqueDirectory, reuseAccessPoint, az, enforceZoneAffinity, enableTagging, pvcName, pvcNamespace,
        pvName);
  }

  /** Whether the allocator must provide uid, gid or both. */
  public boolean needsAllocation() {
    return uid == UNSET || gid == UNSET;
  }

  /**
   * The volume's directory below basePath. Without subPathPattern it is the volume name (the PV name). With it, the
   * resolved pattern, plus a UUID when ensureUniqueDirectory is on. The UUID is derived from the volume name instead
   * of being random, so a retried CreateVolume asks for exactly the same directory (and the same access point).
   *
   * <p>Every value put in is one directory name ({@link DirectoryNames}), so the directories of one StorageClass all
   * have the depth the pattern's own text gives them and none lies inside another.
   */
  public String directoryName(String volumeName) {
    String name;
    if (subPathPattern.isEmpty()) {
      // An access point's root is shortened to fit (volumePath), so only a directory volume's name is bounded here.
      requireOneName(volumeName, mode != ProvisioningMode.ACCESS_POINT);
      name = volumeName;
    } else {
      String pvName = this.pvName;
      if (pvName.isEmpty() && subPathPattern.contains("${.PV.name}")) {
        requireOneName(volumeName, true);
        pvName = volumeName;
      }
      name = SubPathPattern.resolve(subPathPattern, pvcName, pvcNamespace, pvName);
      if (ensureUniqueDirectory) {
        name = name + "-" + UUID.nameUUIDFromBytes(volumeName.getBytes(StandardCharsets.UTF_8));
      }
    }
    if (EfsPaths.climbs(name)) {
      throw invalid(SUB_PATH_PATTERN + " resolves to " + DirectoryNames.quoted(name) + ", which contains \"..\"");
    }
    if (EfsPaths.clean(name).equals(EfsPaths.ROOT)) {
      throw invalid(SUB_PATH_PATTERN + " " + DirectoryNames.quoted(subPathPattern) + " resolves to no directory; "
          + "every volume would share " + basePath);
    }
    return name;
  }

  private static void requireOneName(String volumeName, boolean checkLength) {
    DirectoryNames.componentProblem(volumeName, checkLength).ifPresent(problem -> {
      throw DriverException.invalidArgument(VOLUME_NAME, "volume name " + DirectoryNames.quoted(volumeName)
          + " becomes the volume's directory name and " + problem);
    });
  }

  /**
   * The clean absolute path of the volume's directory in the file system; always strictly below basePath. An access
   * point root may have 100 characters; when a long volume name alone (no subPathPattern) would exceed that, the name
   * is cut and a hash of the whole name appended, so the directory stays unique and the same on every retry.
   */
  public String volumePath(String volumeName) {
    String path = EfsPaths.join(basePath, directoryName(volumeName));
    if (mode == ProvisioningMode.ACCESS_POINT && subPathPattern.isEmpty() && path.length() > MAX_ROOT_PATH_LENGTH) {
      int room = MAX_ROOT_PATH_LENGTH - (basePath.equals(EfsPaths.ROOT) ? 1 : basePath.length() + 1);
      if (room >= SHORTENED_NAME_MINIMUM) {
        String hash = ClientTokens.sha256Hex(volumeName).substring(0, 16);
        path = EfsPaths.join(basePath, volumeName.substring(0, room - hash.length() - 1) + "-" + hash);
      }
    }
    if (mode == ProvisioningMode.ACCESS_POINT) {
      long slashes = path.chars().filter(c -> c == '/').count();
      if (path.length() > MAX_ROOT_PATH_LENGTH || slashes > MAX_ROOT_PATH_SLASHES) {
        throw invalid("access point root directory " + DirectoryNames.quoted(path) + " is too long (at most "
            + MAX_ROOT_PATH_LENGTH + " characters and 4 subdirectories below the first); shorten " + BASE_PATH
            + " or " + SUB_PATH_PATTERN);
      }
    }
    String resolved = path;
    DirectoryNames.pathProblem(resolved).ifPresent(problem -> {
      String message = "the volume's directory " + DirectoryNames.quoted(resolved) + " " + problem;
      throw subPathPattern.isEmpty() ? DriverException.invalidArgument(VOLUME_NAME, message)
          : invalid(message + "; shorten " + SUB_PATH_PATTERN + " or " + BASE_PATH);
    });
    return path;
  }

  private static ProvisioningMode mode(String value) {
    if (value == null || value.isEmpty()) {
      throw invalid("missing " + PROVISIONING_MODE + "; set it to efs-ap or efs-dir");
    }
    for (ProvisioningMode m : ProvisioningMode.values()) {
      if (m.parameterValue().equals(value)) {
        return m;
      }
    }
    throw invalid(PROVISIONING_MODE + " \"" + value + "\" is not supported; use efs-ap or efs-dir");
  }

  private static String required(Map<String, String> parameters, String key) {
    String value = parameters.get(key);
    if (value == null || value.isBlank()) {
      throw invalid("missing " + key);
    }
    return value;
  }

  private static long posixId(Map<String, String> parameters, String key) {
    String value = parameters.get(key);
    if (value == null) {
      return UNSET;
    }
    if (!DECIMAL.matcher(value).matches() || Long.parseLong(value) > MAX_POSIX_ID) {
      throw invalid(key + " \"" + value + "\" is not a POSIX id (a whole number from 0 to " + MAX_POSIX_ID + ")");
    }
    return Long.parseLong(value);
  }

  private static GidRange gidRange(Map<String, String> parameters, ProvisioningMode mode) {
    boolean hasStart = parameters.containsKey(GID_RANGE_START);
    boolean hasEnd = parameters.containsKey(GID_RANGE_END);
    if (hasStart != hasEnd) {
      throw invalid("missing " + (hasStart ? GID_RANGE_END : GID_RANGE_START) + ": set both " + GID_RANGE_START
          + " and " + GID_RANGE_END + " or neither");
    }
    if (!hasStart) {
      return GidRange.DEFAULT;
    }
    if (mode == ProvisioningMode.DIRECTORY) {
      throw invalid(GID_RANGE_START + "/" + GID_RANGE_END + " need " + PROVISIONING_MODE + " efs-ap; efs-dir volumes "
          + "take a fixed " + UID + " and " + GID);
    }
    long start = posixId(parameters, GID_RANGE_START);
    long end = posixId(parameters, GID_RANGE_END);
    if (start <= 0) {
      throw invalid(GID_RANGE_START + " must be greater than 0, was " + start);
    }
    if (end <= start) {
      throw invalid(GID_RANGE_END + " (" + end + ") must be greater than " + GID_RANGE_START + " (" + start + ")");
    }
    return new GidRange(start, end);
  }

  /**
   * Upstream's strconv.ParseBool: exactly 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False; anything else
   * (including spaces) is InvalidArgument for reuseAccessPoint, enforceZoneAffinity and enableTagging.
   */
  static Boolean goParseBool(String value) {
    return switch (value) {
      case "1", "t", "T", "TRUE", "true", "True" -> Boolean.TRUE;
      case "0", "f", "F", "FALSE", "false", "False" -> Boolean.FALSE;
      default -> null;
    };
  }

  private static boolean bool(Map<String, String> parameters, String key, boolean fallback) {
    String value = parameters.get(key);
    if (value == null) {
      return fallback;
    }
    Boolean parsed = goParseBool(value);
    if (parsed == null) {
      if (key.equals(ENSURE_UNIQUE_DIRECTORY)) {
        // Upstream: `if b, err := strconv.ParseBool(v); !b && err == nil` skips the suffix, else appends it, so an
        // unparsable value means true there; the same here, said in a WARN line.
        LOG.warn("StorageClass parameter \"{}\": value {} is not a Go boolean, so it is true (as upstream)", key,
            DirectoryNames.quoted(value));
        return true;
      }
      throw invalid("Invalid value for " + key + " parameter: \"" + value + "\" (Go strconv.ParseBool: true, false, "
          + "1, 0, t, f, T, F, TRUE, FALSE, True, False)");
    }
    return parsed;
  }

  private static DriverException invalid(String message) {
    return DriverException.invalidArgument("parameters", message);
  }
}
