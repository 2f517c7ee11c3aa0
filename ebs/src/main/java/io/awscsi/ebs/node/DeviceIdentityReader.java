package io.awscsi.ebs.node;

import java.util.Optional;

/**
 * Tells which volume a block device is, from the kernel's view of it, so a device found by name can be checked
 * before it is formatted or mounted.
 */
@FunctionalInterface
public interface DeviceIdentityReader {

  /**
   * The identity of the block device with this kernel name ({@code nvme1n1}, {@code loop3}): an EBS NVMe serial such
   * as {@code vol0123456789abcdef0}, or another serial for other devices; empty when the device has no readable
   * identity (not present, or a Xen {@code xvd} device without a serial).
   */
  Optional<String> identityOf(String blockName);
}
