package io.awscsi.efs.node;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.InvalidMountOptionException;
import io.awscsi.core.host.MountOptions;
import io.awscsi.efs.volume.VolumeHandle;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The efs-utils options of one publish: {@code tls} (encryptInTransit, and always with an access point),
 * {@code accesspoint=}, the PV/StorageClass mountOptions lower-cased and de-duplicated, {@code mounttargetip=} and
 * {@code crossaccount} from the volume context. Read-only is not an option here; the backend applies it.
 */
final class EfsMountOptions {

  private static final String ACCESS_POINT = "accesspoint=";
  private static final String MOUNT_TARGET_IP = "mounttargetip=";

  private EfsMountOptions() {}

  /**
   * Composes and validates the options.
   *
   * @param mountFlags the capability's mount flags as the CO sent them
   * @param nodeZone the node's availability zone, to pick from a mount target map
   * @throws DriverException InvalidArgument naming a refused or conflicting option
   */
  static List<String> compose(VolumeHandle handle, NodeVolumeContext context, List<String> mountFlags,
      boolean readOnly, String nodeZone) {
    String mountTarget = context.mountTargetFor(nodeZone);
    Set<String> user = new LinkedHashSet<>();
    for (String entry : mountFlags) {
      for (String option : entry.split(",")) {
        String o = option.strip().toLowerCase(Locale.ROOT);
        if (o.isEmpty() || o.startsWith("awscredsuri")) {
          // Upstream drops awscredsuri: the node's credentials are not the pod's to choose.
          continue;
        }
        if (o.equals("crossaccount")) {
          throw invalid("mount option crossaccount cannot be set in mountOptions; it comes from the provisioner "
              + "secret through the volume context");
        }
        if (o.equals("tls") && !context.encryptInTransit()) {
          throw invalid("mount option tls conflicts with volume context encryptInTransit \"false\"; remove one");
        }
        if (o.startsWith(ACCESS_POINT) && handle.hasAccessPoint()
            && !o.substring(ACCESS_POINT.length()).equals(handle.accessPointId())) {
          throw invalid("mount option " + o + " conflicts with access point " + handle.accessPointId()
              + " of volume " + handle.volumeId() + "; remove it (accesspoint in mountOptions is deprecated)");
        }
        if (o.startsWith(MOUNT_TARGET_IP) && !mountTarget.isEmpty()
            && !o.substring(MOUNT_TARGET_IP.length()).equals(mountTarget)) {
          throw invalid("mount option " + o + " conflicts with mount target " + mountTarget
              + " of the volume context; remove one");
        }
        if (o.equals("rw") && readOnly) {
          // Read-only is absolute: a writable option on a read-only publish is a contradiction, not a tie-break.
          try {
            MountOptions.checkReadOnly(true, List.of(o));
          } catch (InvalidMountOptionException e) {
            throw invalid(e.getMessage());
          }
        }
        user.add(o);
      }
    }
    List<String> options = new ArrayList<>();
    if (context.encryptInTransit() || handle.hasAccessPoint()) {
      // efs-utils mounts an access point only over TLS; upstream adds tls with every access point.
      options.add("tls");
    }
    if (handle.hasAccessPoint()) {
      options.add(ACCESS_POINT + handle.accessPointId());
    }
    options.addAll(user);
    if (!mountTarget.isEmpty()) {
      options.add(MOUNT_TARGET_IP + mountTarget);
    }
    if (context.crossAccount()) {
      options.add("crossaccount");
    }
    try {
      return MountOptions.validate(MountOptions.Family.NFS, options);
    } catch (InvalidMountOptionException e) {
      throw invalid(e.getMessage());
    }
  }

  private static DriverException invalid(String message) {
    return DriverException.invalidArgument("volume_capability.mount.mount_flags", message);
  }
}
