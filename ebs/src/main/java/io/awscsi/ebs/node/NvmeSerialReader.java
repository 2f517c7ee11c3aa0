package io.awscsi.ebs.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Reads NVMe serials from sysfs ({@code /sys/block/nvme1n1/device/serial}); an EBS volume's serial is its id without
 * the dash, padded with spaces.
 */
public final class NvmeSerialReader implements DeviceIdentityReader {

  private final Path sysBlock;

  public NvmeSerialReader(Path sysBlock) {
    this.sysBlock = sysBlock;
  }

  @Override
  public Optional<String> identityOf(String blockName) {
    var serialFile = sysBlock.resolve(blockName).resolve("device").resolve("serial");
    try {
      var serial = Files.readString(serialFile).strip();
      return serial.isEmpty() ? Optional.empty() : Optional.of(serial);
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
