package io.awscsi.emulation.ebs;

import io.awscsi.core.host.LoopDevices.FileIdentity;
import io.awscsi.ebs.node.DeviceIdentityReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The identity of a loop device of the local backend: the volume whose file in this state directory
 * ({@code <state>/volumes/vol-0123....img}) is the device's backing file itself, compared as the kernel holds it
 * (file system device number and inode), never by name or size. The name the kernel reports
 * ({@code /sys/block/loop3/loop/backing_file}) only says which volume file to compare with.
 *
 * <p>A name proves nothing: a loop device attached in another mount namespace over a file named
 * {@code <state>/volumes/<vol>.img} there (another directory bind-mounted over the state) reads exactly this state's
 * path. The device and inode tell it apart, and they also recognise this state's own file attached in another
 * container through a bind mount of the state directory (the chart's controller pod and its hostPath), whose name
 * then reads {@code /volumes/vol-0123....img}: a bind mount shows the same file.
 */
public final class LoopBackingFileReader implements DeviceIdentityReader {

  /** The kernel's identity of the file backing a loop device ({@code loop3}), empty when it has none. */
  @FunctionalInterface
  public interface BackingFiles {
    Optional<FileIdentity> of(String blockName);
  }

  private final Path sysBlock;
  private final Path volumesDirectory;
  private final BackingFiles backingFiles;

  public LoopBackingFileReader(Path sysBlock, Path volumesDirectory, BackingFiles backingFiles) {
    this.sysBlock = sysBlock;
    this.volumesDirectory = volumesDirectory;
    this.backingFiles = backingFiles;
  }

  @Override
  public Optional<String> identityOf(String blockName) {
    Path name;
    try {
      name = Path.of(Files.readString(sysBlock.resolve(blockName).resolve("loop").resolve("backing_file")).strip())
          .getFileName();
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // not a loop device, or not attached
    }
    if (name == null) {
      return Optional.empty();
    }
    Optional<String> volumeId = LoopDeviceBackend.volumeIdOf(name.toString());
    if (volumeId.isEmpty()) {
      return Optional.empty();
    }
    FileIdentity ours;
    try {
      ours = FileIdentity.of(volumesDirectory.resolve(name.toString()));
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // this state has no such volume file: the device is someone else's
    }
    return backingFiles.of(blockName).filter(ours::equals).flatMap(same -> volumeId);
  }
}
