package io.awscsi.diagnose;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.Map;

/** Reads fields of generic resources (VolumeSnapshot, VolumeSnapshotContent) by path, absent as empty. */
final class Fields {

  private Fields() {}

  static Object value(GenericKubernetesResource resource, String... path) {
    if (resource == null) {
      return null;
    }
    Object current = resource.getAdditionalProperties();
    if (path.length > 0 && path[0].equals("metadata")) {
      return null; // metadata is typed: read it through getMetadata()
    }
    for (String key : path) {
      if (!(current instanceof Map<?, ?> map)) {
        return null;
      }
      current = map.get(key);
    }
    return current;
  }

  static String string(GenericKubernetesResource resource, String... path) {
    Object v = value(resource, path);
    return v == null ? "" : v.toString();
  }

  static boolean isTrue(GenericKubernetesResource resource, String... path) {
    return Boolean.TRUE.equals(value(resource, path)) || "true".equals(string(resource, path));
  }
}
