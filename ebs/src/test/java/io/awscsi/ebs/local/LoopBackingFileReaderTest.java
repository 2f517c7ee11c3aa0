package io.awscsi.ebs.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Identities of loop devices from a fake /sys/block. */
class LoopBackingFileReaderTest {

  @TempDir Path root;

  private void loop(String name, String backingFile) throws IOException {
    var loopDirectory = Files.createDirectories(root.resolve("sys/block").resolve(name).resolve("loop"));
    Files.writeString(loopDirectory.resolve("backing_file"), backingFile + "\n");
  }

  @Test
  void aLoopDeviceOverAVolumeFileIsThatVolume() throws IOException {
    var volumes = root.resolve("state/volumes");
    loop("loop3", volumes.resolve("vol-0123456789abcdef0.img").toString());
    loop("loop4", "/var/tmp/vol-0123456789abcdef0.img");
    loop("loop5", volumes.resolve("scratch.img").toString());
    var reader = new LoopBackingFileReader(root.resolve("sys/block"), volumes);

    assertThat(reader.identityOf("loop3")).contains("vol-0123456789abcdef0");
    assertThat(reader.identityOf("loop4")).as("someone else's file").isEmpty();
    assertThat(reader.identityOf("loop5")).isEmpty();
    assertThat(reader.identityOf("loop9")).as("not attached").isEmpty();
    assertThat(reader.identityOf("nvme0n1")).isEmpty();
  }

  @Test
  void aPathSeenThroughAnotherContainersBindMountIsThisStatesFileOnlyWithItsSize() throws IOException {
    var volumes = Files.createDirectories(root.resolve("state/volumes"));
    Files.write(volumes.resolve("vol-0123456789abcdef0.img"), new byte[4096]);
    Files.write(volumes.resolve("vol-0123456789abcdef1.img"), new byte[4096]);
    // Attached in a container through a bind mount of <state>: the kernel reads the path below that mount.
    loop("loop3", "/volumes/vol-0123456789abcdef0.img");
    Files.writeString(root.resolve("sys/block/loop3/size"), "8\n");
    loop("loop4", "/volumes/vol-0123456789abcdef1.img");
    Files.writeString(root.resolve("sys/block/loop4/size"), "16\n");
    loop("loop5", "/other/vol-0123456789abcdef0.img");
    Files.writeString(root.resolve("sys/block/loop5/size"), "8\n");
    loop("loop6", "/volumes/vol-0123456789abcdef2.img");
    Files.writeString(root.resolve("sys/block/loop6/size"), "8\n");
    var reader = new LoopBackingFileReader(root.resolve("sys/block"), volumes);

    assertThat(reader.identityOf("loop3")).contains("vol-0123456789abcdef0");
    assertThat(reader.identityOf("loop4")).as("another size: another file").isEmpty();
    assertThat(reader.identityOf("loop5")).as("not a tail of the state's path").isEmpty();
    assertThat(reader.identityOf("loop6")).as("no such file here").isEmpty();
  }
}
