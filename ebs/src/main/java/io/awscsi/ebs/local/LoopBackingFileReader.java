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
 *
 * <p>The kernel writes the backing file's path as the process that attached it saw it, relative to a mount the reader
 * may not see: a loop device attached in another container through a bind mount of the state directory (the chart's
 * controller pod and its hostPath) reads {@code /volumes/vol-0123....img} once that container is gone. Such a path
 * is this state's file only when it is a tail of {@code <state>/volumes/<name>}, that file exists here and its size
 * is the device's: two files of one volume id with the same size in another state directory are not told apart.
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
      if (backingFile.getFileName() == null) {
        return Optional.empty();
      }
      if (!volumesDirectory.equals(backingFile.getParent()) && !seenThroughAnotherMount(blockName, backingFile)) {
        return Optional.empty();
      }
      return LoopDeviceBackend.volumeIdOf(backingFile.getFileName().toString());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** A path of another mount's view: a tail of this state's file, which exists here with the device's size. */
  private boolean seenThroughAnotherMount(String blockName, Path backingFile) throws IOException {
    var local = volumesDirectory.resolve(backingFile.getFileName().toString());
    if (backingFile.getParent() == null || !local.endsWith(backingFile.toString().substring(1))
        || !Files.isRegularFile(local)) {
      return false;
    }
    long sectors = Long.parseLong(Files.readString(sysBlock.resolve(blockName).resolve("size")).strip());
    return sectors * 512 == Files.size(local);
  }
}
