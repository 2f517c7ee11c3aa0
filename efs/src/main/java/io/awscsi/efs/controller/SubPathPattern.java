package io.awscsi.efs.controller;

import io.awscsi.core.errors.DriverException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code subPathPattern} template. Only {@code ${.PVC.name}}, {@code ${.PVC.namespace}} and {@code ${.PV.name}}
 * may appear, as upstream allows; any other {@code ${...}} is refused so a typo cannot silently produce a directory
 * shared by every volume.
 */
public final class SubPathPattern {

  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}]*)}");

  private SubPathPattern() {}

  /** Checks the template without resolving it. */
  static void validate(String pattern) {
    DirectoryNames.characterProblem(pattern).ifPresent(problem -> {
      throw DriverException.invalidArgument("parameters", "subPathPattern " + DirectoryNames.quoted(pattern) + " "
          + problem);
    });
    Matcher m = PLACEHOLDER.matcher(pattern);
    while (m.find()) {
      String name = m.group(1);
      if (!name.equals(".PVC.name") && !name.equals(".PVC.namespace") && !name.equals(".PV.name")) {
        throw DriverException.invalidArgument("parameters", "subPathPattern " + DirectoryNames.quoted(pattern)
            + " uses ${" + name + "}; only ${.PVC.name}, ${.PVC.namespace} and ${.PV.name} are supported");
      }
    }
    String rest = PLACEHOLDER.matcher(pattern).replaceAll("");
    if (rest.contains("${")) {
      throw DriverException.invalidArgument("parameters", "subPathPattern " + DirectoryNames.quoted(pattern)
          + " has an unterminated ${");
    }
  }

  /**
   * Fills the placeholders. Each value must be one directory name ({@link DirectoryNames}): the pattern's own text,
   * which the operator wrote, is the only source of "/", so every volume of a class has the same depth and no
   * volume's directory can lie inside another's.
   *
   * @throws DriverException InvalidArgument when a placeholder's value was not passed by the provisioner or is not
   *     one directory name
   */
  static String resolve(String pattern, String pvcName, String pvcNamespace, String pvName) {
    validate(pattern);
    Matcher m = PLACEHOLDER.matcher(pattern);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String value = switch (m.group(1)) {
        case ".PVC.name" -> require(pvcName, "${.PVC.name}", EfsVolumeParameters.PVC_NAME);
        case ".PVC.namespace" -> require(pvcNamespace, "${.PVC.namespace}", EfsVolumeParameters.PVC_NAMESPACE);
        default -> require(pvName, "${.PV.name}", EfsVolumeParameters.PV_NAME);
      };
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static String require(String value, String placeholder, String key) {
    if (value.isEmpty()) {
      throw DriverException.invalidArgument("parameters", "subPathPattern uses " + placeholder + " but the request "
          + "has no " + key + "; run csi-provisioner with --extra-create-metadata");
    }
    DirectoryNames.componentProblem(value).ifPresent(problem -> {
      throw DriverException.invalidArgument("parameters", key + " " + DirectoryNames.quoted(value) + " for "
          + placeholder + " " + problem);
    });
    return value;
  }
}
