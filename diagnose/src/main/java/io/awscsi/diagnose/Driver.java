package io.awscsi.diagnose;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The two drivers as the charts deploy them: the CSI name, the controller Deployment's and node DaemonSet's
 * {@code app} label (upstream's), the plugin container, and which controller sidecars run beside it.
 */
enum Driver {
  EBS("ebs.csi.aws.com", "ebs", true,
      EnumSet.of(Knowledge.Actor.PROVISIONER, Knowledge.Actor.ATTACHER, Knowledge.Actor.RESIZER,
          Knowledge.Actor.SNAPSHOTTER)),
  EFS("efs.csi.aws.com", "efs", false, EnumSet.of(Knowledge.Actor.PROVISIONER));

  final String csiName;
  final String prefix;
  /** The CSIDriver's attachRequired: EFS volumes are mounted without an attach, so no VolumeAttachment. */
  final boolean attachRequired;
  final Set<Knowledge.Actor> sidecars;

  Driver(String csiName, String prefix, boolean attachRequired, Set<Knowledge.Actor> sidecars) {
    this.csiName = csiName;
    this.prefix = prefix;
    this.attachRequired = attachRequired;
    this.sidecars = sidecars;
  }

  static Optional<Driver> byCsiName(String name) {
    return Arrays.stream(values()).filter(d -> d.csiName.equals(name)).findFirst();
  }

  String controllerApp() {
    return prefix + "-csi-controller";
  }

  String nodeApp() {
    return prefix + "-csi-node";
  }

  String pluginContainer() {
    return prefix + "-plugin";
  }

  /** The driver name as the sidecars put it in their Lease names: csi-lib-utils' sanitizeName. */
  String leaseSuffix() {
    String name = csiName.replaceAll("[^a-zA-Z0-9-]", "-");
    return name.endsWith("-") ? name + "X" : name;
  }
}
