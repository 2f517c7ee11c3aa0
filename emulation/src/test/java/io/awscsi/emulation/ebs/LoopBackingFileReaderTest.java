package io.awscsi.emulation.ebs;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.host.LoopDevices.FileIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Identities of loop devices from a fake /sys/block and the kernel's backing-file identities: the volume file itself
 * (device and inode), never its name or size.
 */
class LoopBackingFileReaderTest {

  @TempDir Path root;

  private final Map<String, FileIdentity> kernel = new HashMap<>();

  /** A loop device whose kernel-reported name is {@code name} and whose backing file is {@code file}. */
  private void loop(String device, String name, Path file) throws IOException {
    var loopDirectory = Files.createDirectories(root.resolve("sys/block").resolve(device).resolve("loop"));
    Files.writeString(loopDirectory.resolve("backing_file"), name + "\n");
    kernel.put(device, FileIdentity.of(file));
  }

  private LoopBackingFileReader reader(Path volumes) {
    return new LoopBackingFileReader(root.resolve("sys/block"), volumes,
        device -> Optional.ofNullable(kernel.get(device)));
  }

  @Test
  void aLoopDeviceOverThisStatesVolumeFileIsThatVolume() throws IOException {
    var volumes = Files.createDirectories(root.resolve("state/volumes"));
    var file = Files.write(volumes.resolve("vol-0123456789abcdef0.img"), new byte[4096]);
    var scratch = Files.write(volumes.resolve("scratch.img"), new byte[4096]);
    loop("loop3", file.toString(), file);
    loop("loop5", scratch.toString(), scratch);

    assertThat(reader(volumes).identityOf("loop3")).contains("vol-0123456789abcdef0");
    assertThat(reader(volumes).identityOf("loop5")).as("not a volume file").isEmpty();
    assertThat(reader(volumes).identityOf("loop9")).as("not attached").isEmpty();
    assertThat(reader(volumes).identityOf("nvme0n1")).isEmpty();
  }

  /**
   * Another file of the same name and size (attached in another mount namespace where another directory is bound
   * over the state, so the kernel reports exactly this state's path) is not the volume; neither is a name with no
   * file here. This state's own file seen through a bind mount in another container (a tail of its path) is.
   */
  @Test
  void onlyTheFileItselfIsTheVolumeWhateverItsName() throws IOException {
    var volumes = Files.createDirectories(root.resolve("state/volumes"));
    var mine = Files.write(volumes.resolve("vol-0123456789abcdef0.img"), new byte[4096]);
    var foreign = Files.write(Files.createDirectories(root.resolve("elsewhere/volumes"))
        .resolve("vol-0123456789abcdef0.img"), new byte[4096]);
    loop("loop3", mine.toString(), foreign);
    loop("loop4", "/volumes/vol-0123456789abcdef0.img", mine);
    loop("loop6", volumes.resolve("vol-0123456789abcdef2.img").toString(), foreign);

    assertThat(reader(volumes).identityOf("loop3")).as("same name and size, another file").isEmpty();
    assertThat(reader(volumes).identityOf("loop4")).as("this file through a bind mount")
        .contains("vol-0123456789abcdef0");
    assertThat(reader(volumes).identityOf("loop6")).as("no such file here").isEmpty();
  }

  /** A volume file replaced (deleted and made again under its name) is another file: its old device is not it. */
  @Test
  void aReplacedFileIsAnotherFile() throws IOException {
    var volumes = Files.createDirectories(root.resolve("state/volumes"));
    var file = Files.write(volumes.resolve("vol-0123456789abcdef0.img"), new byte[4096]);
    loop("loop3", file.toString(), file);
    var old = kernel.get("loop3");
    Files.move(file, root.resolve("kept.img"));
    Files.write(file, new byte[4096]);
    kernel.put("loop3", old);

    assertThat(FileIdentity.of(file)).isNotEqualTo(old);
    assertThat(reader(volumes).identityOf("loop3")).isEmpty();
  }
}
