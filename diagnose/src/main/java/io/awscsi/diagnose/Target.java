package io.awscsi.diagnose;

/**
 * What to diagnose: {@code pvc NS/NAME}, {@code pod NS/NAME}, {@code volumesnapshot NS/NAME},
 * {@code volumegroupsnapshot NS/NAME} or {@code pv NAME}.
 */
sealed interface Target {

  String kind();

  String namespace();

  String name();

  /** How a person writes it: {@code pvc default/data}. */
  default String describe() {
    return kind() + " " + (namespace().isEmpty() ? "" : namespace() + "/") + name();
  }

  record Pvc(String namespace, String name) implements Target {
    @Override
    public String kind() {
      return "pvc";
    }
  }

  record Pod(String namespace, String name) implements Target {
    @Override
    public String kind() {
      return "pod";
    }
  }

  record VolumeSnapshot(String namespace, String name) implements Target {
    @Override
    public String kind() {
      return "volumesnapshot";
    }
  }

  record VolumeGroupSnapshot(String namespace, String name) implements Target {
    @Override
    public String kind() {
      return "volumegroupsnapshot";
    }
  }

  record Pv(String name) implements Target {
    @Override
    public String kind() {
      return "pv";
    }

    @Override
    public String namespace() {
      return "";
    }
  }

  /**
   * Parses the two positional arguments; kubectl's spellings of the kinds are accepted.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  static Target parse(String kind, String ref) {
    String k = kind.toLowerCase(java.util.Locale.ROOT);
    if (k.equals("pv") || k.equals("persistentvolume") || k.equals("persistentvolumes")) {
      if (ref.contains("/")) {
        throw new IllegalArgumentException("a PV has no namespace: write pv NAME, got " + ref);
      }
      return new Pv(checkName(ref));
    }
    int slash = ref.indexOf('/');
    if (slash <= 0 || slash == ref.length() - 1 || ref.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException(kind + " needs NAMESPACE/NAME, got " + ref);
    }
    String namespace = checkName(ref.substring(0, slash));
    String name = checkName(ref.substring(slash + 1));
    return switch (k) {
      case "pvc", "persistentvolumeclaim", "persistentvolumeclaims" -> new Pvc(namespace, name);
      case "pod", "pods", "po" -> new Pod(namespace, name);
      case "volumesnapshot", "volumesnapshots", "vs" -> new VolumeSnapshot(namespace, name);
      case "volumegroupsnapshot", "volumegroupsnapshots", "vgs" -> new VolumeGroupSnapshot(namespace, name);
      default -> throw new IllegalArgumentException("unknown kind " + kind
          + "; use pvc, pod, volumesnapshot, volumegroupsnapshot or pv");
    };
  }

  private static String checkName(String name) {
    if (!name.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?") || name.length() > 253) {
      throw new IllegalArgumentException("not a Kubernetes object name: " + name);
    }
    return name;
  }
}
