package io.awscsi.efs.node;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.awscsi.core.errors.DriverException;
import io.awscsi.efs.volume.VolumeContextKeys;
import java.net.InetAddress;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The volume context NodePublishVolume accepts, as upstream: keys match case-insensitively, and any key not listed is
 * refused ("volume context property ... not supported") so a misspelt option is not silently dropped.
 *
 * @param mountTargetIp "" when not set
 * @param mountTargetIpMap zone to mount target IP, sorted by zone; empty when not set
 */
public record NodeVolumeContext(boolean encryptInTransit, String mountTargetIp, Map<String, String> mountTargetIpMap,
    boolean crossAccount) {

  private static final ObjectMapper JSON = new ObjectMapper();

  public NodeVolumeContext {
    // Sorted, so "the first zone" of the fallback is the same on every call.
    mountTargetIpMap = Collections.unmodifiableSortedMap(new TreeMap<>(mountTargetIpMap));
  }

  public static NodeVolumeContext parse(Map<String, String> context) {
    boolean encrypt = true;
    String ip = "";
    Map<String, String> ipMap = new TreeMap<>();
    boolean crossAccount = false;
    for (Map.Entry<String, String> e : context.entrySet()) {
      String key = e.getKey().toLowerCase(Locale.ROOT);
      String value = e.getValue().strip();
      if (key.equals(VolumeContextKeys.ENCRYPT_IN_TRANSIT.toLowerCase(Locale.ROOT))) {
        encrypt = bool(e.getKey(), value);
      } else if (key.equals(VolumeContextKeys.MOUNT_TARGET_IP)) {
        ip = ipAddress(e.getKey(), value);
      } else if (key.equals(VolumeContextKeys.MOUNT_TARGET_IP_MAP)) {
        ipMap.putAll(ipMap(e.getKey(), value));
      } else if (key.equals(VolumeContextKeys.CROSS_ACCOUNT)) {
        crossAccount = bool(e.getKey(), value);
      } else if (!key.equals(VolumeContextKeys.PROVISIONER_IDENTITY.toLowerCase(Locale.ROOT))) {
        throw invalid("volume context property " + e.getKey() + " not supported; supported: "
            + VolumeContextKeys.ENCRYPT_IN_TRANSIT + ", " + VolumeContextKeys.MOUNT_TARGET_IP + ", "
            + VolumeContextKeys.MOUNT_TARGET_IP_MAP + ", " + VolumeContextKeys.CROSS_ACCOUNT);
      }
    }
    return new NodeVolumeContext(encrypt, ip, ipMap, crossAccount);
  }

  /**
   * The mount target to use: the explicit IP, else the map's entry for the node's zone, else the first entry (the
   * node's zone has no mount target, as upstream falls back); "" when neither is set.
   */
  public String mountTargetFor(String nodeZone) {
    if (!mountTargetIp.isEmpty()) {
      return mountTargetIp;
    }
    if (mountTargetIpMap.isEmpty()) {
      return "";
    }
    String inZone = mountTargetIpMap.get(nodeZone);
    return inZone != null ? inZone : mountTargetIpMap.values().iterator().next();
  }

  private static boolean bool(String key, String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw invalid("volume context " + key + " \"" + value + "\" is not true or false");
    };
  }

  private static String ipAddress(String key, String value) {
    // ofLiteral never resolves names, so a host name is refused instead of looked up.
    try {
      if (value.isEmpty() || !value.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.' || c == ':')) {
        throw new IllegalArgumentException("not an address literal");
      }
      InetAddress.ofLiteral(value);
      return value;
    } catch (IllegalArgumentException e) {
      throw invalid("volume context " + key + " \"" + value + "\" is not an IP address");
    }
  }

  private static Map<String, String> ipMap(String key, String value) {
    JsonNode node;
    try {
      node = JSON.readTree(value);
    } catch (JsonProcessingException e) {
      throw invalid("volume context " + key + " is not a JSON object of zone to IP address: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject() || node.isEmpty()) {
      throw invalid("volume context " + key + " must be a non-empty JSON object of zone to IP address");
    }
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, JsonNode> zone : node.properties()) {
      if (!zone.getValue().isTextual()) {
        throw invalid("volume context " + key + ": the address of zone " + zone.getKey() + " is not a string");
      }
      out.put(zone.getKey(), ipAddress(key + "[" + zone.getKey() + "]", zone.getValue().asText()));
    }
    return out;
  }

  private static DriverException invalid(String message) {
    return DriverException.invalidArgument("volume_context", message);
  }
}
