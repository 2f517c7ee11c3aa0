package io.awscsi.ebs.local;

import io.awscsi.ebs.node.DeviceIdentityReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The identity of a loop device of the local backend: the volume id in the name of its backing file
 * ({@code /sys/block/loop3/loop/backing_file} reads {@code <state>/volumes/vol-0123....img}). Loop devices backed by
 * files elsewhere belong to someone else and have no identity here.
 */
public final class LoopBackingFileReader implements DeviceIdentityReader {

  private final Path sysBlock;
  private final Path volumesDirectory;

  public LoopBackingFileReader(Path sysBlock, Path volumesDirectory) {
    this.sysBlock = sysBlock;
    this.volumesDirectory = volumesDirectory;
  }

  @Override
  public Optional<String> identityOf(String blockName) {
    try {
      var backingFile = Path.of(Files.readString(sysBlock.resolve(blockName).resolve("loop").resolve("backing_file"))
          .strip());
      if (!volumesDirectory.equals(backingFile.getParent())) {
        return Optional.empty();
      }
      return LoopDeviceBackend.volumeIdOf(backingFile.getFileName().toString());
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
