package io.awscsi.launcher;

import io.awscsi.core.provider.ControllerProvider;
import io.awscsi.ebs.node.VolumeDeviceLocator;
import io.awscsi.efs.mount.EfsMountBackend;
import java.util.Optional;

/**
 * What a caller of the composition root puts in place of the parts that face the cloud's attachments and the host's
 * mounts: the controller as served, where the EBS node finds attached volumes, how EFS is mounted. A serving driver
 * has none ({@link #NONE}): the parts are those built for EC2 and EFS. Opened once per driver after its endpoint was
 * found free, and closed with the driver, after everything built over it.
 */
public interface DriverSeams extends AutoCloseable {

  /** The serving driver's: every part as built for AWS. */
  DriverSeams NONE = new DriverSeams() { };

  /** Opens the seams of one driver, given its options; called before any other part of the driver is built. */
  @FunctionalInterface
  interface Opener {
    Opener NONE = options -> DriverSeams.NONE;

    DriverSeams open(DriverOptions options);
  }

  /** The controller the driver serves, given the one built over the cloud's API. */
  default ControllerProvider controller(ControllerProvider built) {
    return built;
  }

  /** Where the EBS node finds attached volumes; empty: the host's devices, as EC2 attaches them. */
  default Optional<VolumeDeviceLocator> ebsDeviceLocator() {
    return Optional.empty();
  }

  /** How the EFS controller and node mount file systems; empty: efs-utils. */
  default Optional<EfsMountBackend.Factory> efsMountBackend() {
    return Optional.empty();
  }

  @Override
  default void close() { }
}
