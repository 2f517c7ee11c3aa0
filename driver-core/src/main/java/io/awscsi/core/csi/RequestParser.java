package io.awscsi.core.csi;

import csi.v1.CapacityRange;
import csi.v1.Topology;
import csi.v1.TopologyRequirement;
import csi.v1.VolumeContentSource;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeSource;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns proto fields into the provider's records, refusing a missing or malformed field with INVALID_ARGUMENT that
 * names the field as the spec spells it. Proto types stop here.
 */
final class RequestParser {

  /** Volume ids, node ids and names: bounded so a log line or a tag never carries an unbounded string. */
  private static final int MAX_ID_LENGTH = 1024;

  private RequestParser() {}

  static String required(String value, String field) {
    if (value == null || value.isBlank()) {
      throw DriverException.invalidArgument(field, "is required");
    }
    if (value.length() > MAX_ID_LENGTH) {
      throw DriverException.invalidArgument(field, "is longer than " + MAX_ID_LENGTH + " characters");
    }
    if (value.chars().anyMatch(Character::isISOControl)) {
      throw DriverException.invalidArgument(field, "contains control characters");
    }
    return value;
  }

  /** An optional id or token: "" when absent, otherwise bounded and free of control characters as {@link #required}. */
  static String optional(String value, String field) {
    return value == null || value.isEmpty() ? "" : required(value, field);
  }

  /** A List call's starting_token: "" when absent; one no listing could have returned is ABORTED (the spec). */
  static String startingToken(String value) {
    if (value == null || value.isEmpty()) {
      return "";
    }
    if (value.length() > MAX_ID_LENGTH || value.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
      throw DriverException.aborted("starting_token is not a token this driver returned; start the listing again "
          + "without it");
    }
    return value;
  }

  /** An absolute path without {@code ..} or {@code .} segments, as kubelet sends them. */
  static Path path(String value, String field) {
    required(value, field);
    if (!value.startsWith("/")) {
      throw DriverException.invalidArgument(field, "must be an absolute path, got '" + value + "'");
    }
    for (String segment : value.split("/")) {
      if (segment.equals("..") || segment.equals(".")) {
        throw DriverException.invalidArgument(field, "must not contain '.' or '..' segments, got '" + value + "'");
      }
    }
    if (value.indexOf('\0') >= 0) {
      throw DriverException.invalidArgument(field, "contains a NUL byte");
    }
    return Path.of(value).normalize();
  }

  static Path optionalPath(String value, String field) {
    return value == null || value.isEmpty() ? null : path(value, field);
  }

  static VolumeCapability capability(csi.v1.VolumeCapability cap, String field) {
    AccessMode mode = switch (cap.getAccessMode().getMode()) {
      case SINGLE_NODE_WRITER -> AccessMode.SINGLE_NODE_WRITER;
      case SINGLE_NODE_READER_ONLY -> AccessMode.SINGLE_NODE_READER_ONLY;
      case MULTI_NODE_READER_ONLY -> AccessMode.MULTI_NODE_READER_ONLY;
      case MULTI_NODE_SINGLE_WRITER -> AccessMode.MULTI_NODE_SINGLE_WRITER;
      case MULTI_NODE_MULTI_WRITER -> AccessMode.MULTI_NODE_MULTI_WRITER;
      case SINGLE_NODE_SINGLE_WRITER -> AccessMode.SINGLE_NODE_SINGLE_WRITER;
      case SINGLE_NODE_MULTI_WRITER -> AccessMode.SINGLE_NODE_MULTI_WRITER;
      case UNKNOWN, UNRECOGNIZED -> throw DriverException.invalidArgument(field + ".access_mode",
          "is required (SINGLE_NODE_WRITER, MULTI_NODE_MULTI_WRITER, ...)");
    };
    AccessType type = switch (cap.getAccessTypeCase()) {
      case BLOCK -> new AccessType.Block();
      case MOUNT -> new AccessType.Mount(cap.getMount().getFsType(), cap.getMount().getMountFlagsList(),
          cap.getMount().getVolumeMountGroup());
      case ACCESSTYPE_NOT_SET -> throw DriverException.invalidArgument(field + ".access_type",
          "is required: set either block or mount");
    };
    return new VolumeCapability(mode, type);
  }

  static List<VolumeCapability> capabilities(List<csi.v1.VolumeCapability> caps, String field) {
    if (caps.isEmpty()) {
      throw DriverException.invalidArgument(field, "is required: at least one volume capability");
    }
    List<VolumeCapability> out = new ArrayList<>(caps.size());
    for (int i = 0; i < caps.size(); i++) {
      out.add(capability(caps.get(i), field + "[" + i + "]"));
    }
    return out;
  }

  static VolumeCapability requiredCapability(csi.v1.VolumeCapability cap, boolean present, String field) {
    if (!present) {
      throw DriverException.invalidArgument(field, "is required");
    }
    return capability(cap, field);
  }

  static io.awscsi.core.provider.CapacityRange capacity(CapacityRange range, boolean present, String field) {
    if (!present) {
      return io.awscsi.core.provider.CapacityRange.UNSPECIFIED;
    }
    long required = range.getRequiredBytes();
    long limit = range.getLimitBytes();
    if (required < 0) {
      throw DriverException.invalidArgument(field + ".required_bytes", "must not be negative, got " + required);
    }
    if (limit < 0) {
      throw DriverException.invalidArgument(field + ".limit_bytes", "must not be negative, got " + limit);
    }
    if (limit > 0 && required > limit) {
      throw DriverException.outOfRange(field + ": required_bytes " + required + " exceeds limit_bytes " + limit);
    }
    return new io.awscsi.core.provider.CapacityRange(required, limit);
  }

  static VolumeSource source(VolumeContentSource source, boolean present) {
    if (!present) {
      return new VolumeSource.Empty();
    }
    return switch (source.getTypeCase()) {
      case SNAPSHOT -> new VolumeSource.FromSnapshot(
          required(source.getSnapshot().getSnapshotId(), "volume_content_source.snapshot.snapshot_id"));
      case VOLUME -> new VolumeSource.FromVolume(
          required(source.getVolume().getVolumeId(), "volume_content_source.volume.volume_id"));
      case TYPE_NOT_SET -> throw DriverException.invalidArgument("volume_content_source", "has neither snapshot nor volume");
    };
  }

  static io.awscsi.core.provider.TopologyRequirement topology(TopologyRequirement req, boolean present) {
    if (!present) {
      return io.awscsi.core.provider.TopologyRequirement.NONE;
    }
    return new io.awscsi.core.provider.TopologyRequirement(
        segments(req.getRequisiteList(), "accessibility_requirements.requisite"),
        segments(req.getPreferredList(), "accessibility_requirements.preferred"));
  }

  /** Topology segments with keys and values bounded and free of control characters, as ids are. */
  private static List<Map<String, String>> segments(List<Topology> topologies, String field) {
    List<Map<String, String>> out = new ArrayList<>(topologies.size());
    for (int i = 0; i < topologies.size(); i++) {
      String at = field + "[" + i + "]";
      Map<String, String> segments = topologies.get(i).getSegmentsMap();
      segments.forEach((key, value) -> {
        required(key, at + " key");
        if (!value.isEmpty()) {
          required(value, at + " " + key);
        }
      });
      out.add(Map.copyOf(segments));
    }
    return out;
  }

  /** Page size and token of List calls; a negative size is INVALID_ARGUMENT. */
  static int maxEntries(int value) {
    if (value < 0) {
      throw DriverException.invalidArgument("max_entries", "must not be negative, got " + value);
    }
    return value;
  }
}
