package io.awscsi.efs.controller;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CallBudget;
import io.awscsi.efs.controller.KubernetesValueReader.Kind;
import io.awscsi.efs.controller.KubernetesValueReader.Result;
import io.awscsi.efs.volume.EfsIds;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The StorageClass parameters {@code fileSystemIdConfigRef} and {@code fileSystemIdSecretRef}, as upstream takes them:
 * {@code namespace/name/key} of a ConfigMap or Secret that holds the file system id, read through the Kubernetes API
 * at every CreateVolume (a changed object takes effect at once). Reading needs RBAC the chart grants with
 * {@code controller.fileSystemIdRefs.enabled}. Each failure names the parameter: a malformed reference or a value
 * that is no file system id is INVALID_ARGUMENT, a missing object or key NOT_FOUND, a refused read
 * PERMISSION_DENIED, an API that does not answer UNAVAILABLE.
 */
final class FileSystemIdRefs {

  static final String CONFIG_REF = "fileSystemIdConfigRef";
  static final String SECRET_REF = "fileSystemIdSecretRef";
  /** Object names and namespaces are DNS-1123 subdomains/labels; keys of ConfigMap and Secret data. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
  private static final Pattern KEY = Pattern.compile("[-._a-zA-Z0-9]{1,253}");
  /** A read of one small object needs no more, even when the caller's deadline is far away. */
  private static final Duration MAX_READ = Duration.ofSeconds(10);

  /** How the controller reads a value; {@link #NONE} where it has no Kubernetes API. */
  @FunctionalInterface
  interface Reader {
    Result read(Kind kind, String namespace, String name, String key, Duration timeout);

    Reader NONE = (kind, namespace, name, key, timeout) -> new Result.Unreachable("this controller has no "
        + "Kubernetes API client");

    static Reader of(KubernetesValueReader reader) {
      return reader::read;
    }
  }

  /** A parsed reference. */
  record Ref(String parameter, Kind kind, String namespace, String name, String key) {
    @Override
    public String toString() {
      return namespace + "/" + name + "/" + key;
    }
  }

  private FileSystemIdRefs() {}

  /**
   * Parses the reference given as {@code parameter}.
   *
   * @throws DriverException INVALID_ARGUMENT naming the parameter when it is not {@code namespace/name/key}
   */
  static Ref parse(String parameter, String value) {
    Kind kind = parameter.equals(CONFIG_REF) ? Kind.CONFIG_MAP : Kind.SECRET;
    String[] parts = value.strip().split("/", -1);
    if (parts.length != 3) {
      throw invalid(parameter + " \"" + value + "\" must be namespace/name/key of the " + kind.displayName()
          + " holding the file system id");
    }
    if (!NAME.matcher(parts[0]).matches() || parts[0].length() > 63) {
      throw invalid(parameter + " \"" + value + "\": \"" + parts[0] + "\" is not a namespace name");
    }
    if (!NAME.matcher(parts[1]).matches()) {
      throw invalid(parameter + " \"" + value + "\": \"" + parts[1] + "\" is not a " + kind.displayName() + " name");
    }
    if (!KEY.matcher(parts[2]).matches()) {
      throw invalid(parameter + " \"" + value + "\": \"" + parts[2] + "\" is not a " + kind.displayName() + " key");
    }
    return new Ref(parameter, kind, parts[0], parts[1], parts[2]);
  }

  /**
   * The file system id the reference holds, read within the caller's deadline.
   *
   * @throws DriverException naming the parameter, with the code of what went wrong (see the class comment)
   */
  static String resolve(Ref ref, Reader reader) {
    Duration left = CallBudget.remaining(MAX_READ);
    Result result = reader.read(ref.kind(), ref.namespace(), ref.name(), ref.key(),
        left.compareTo(MAX_READ) < 0 ? left : MAX_READ);
    String what = ref.parameter() + " " + ref;
    return switch (result) {
      case Result.Found(String value) -> {
        String id = value.strip();
        if (!EfsIds.isFileSystemId(id)) {
          // A Secret's value is never quoted (the answer becomes an event anyone reading the PVC sees).
          String holds = ref.kind() == Kind.SECRET ? "a value"
              : "\"" + (id.length() > 64 ? id.substring(0, 64) + "..." : id) + "\"";
          throw invalid(what + ": key " + ref.key() + " of " + ref.kind().displayName() + " " + ref.namespace() + "/"
              + ref.name() + " holds " + holds + ", which is not a file system id (fs- and 8 to 40 hex digits)");
        }
        yield id;
      }
      case Result.Missing(String why) -> throw DriverException.notFound(what + ": " + why);
      case Result.Forbidden(String message) -> throw DriverException.permissionDenied(what + ": " + message
          + "; the EFS controller's service account needs get on " + (ref.kind() == Kind.SECRET ? "secrets"
              : "configmaps") + " (Helm: controller.fileSystemIdRefs.enabled=true)");
      case Result.Unreachable(String message) -> throw DriverException.unavailable(what + ": " + message);
    };
  }

  private static DriverException invalid(String message) {
    return DriverException.invalidArgument("parameters", message);
  }
}
