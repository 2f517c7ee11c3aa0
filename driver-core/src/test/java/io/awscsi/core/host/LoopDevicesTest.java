package io.awscsi.core.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.host.LoopDevices.FileIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kernel's identity of a loop device's backing file, as losetup prints it, and a file's own. */
class LoopDevicesTest {

  @Test
  void losetupsRawColumnsAreAnIdentity() {
    assertThat(LoopDevices.parseBackingFile("9978218 \\x20\\x20\\x20\\x20\\x20254:0\\x20\\x20\n"))
        .contains(new FileIdentity("254:0", 9978218));
    assertThat(LoopDevices.parseBackingFile("12 8:1\n")).contains(new FileIdentity("8:1", 12));
  }

  @ParameterizedTest(name = "[{0}]")
  @CsvSource(delimiter = '|', value = {"' \n'", "''", "'abc 254:0'", "'12 254'", "'12 254:0 7'", "'-1 254:0'"})
  void anythingElseIsNoIdentity(String line) {
    assertThat(LoopDevices.parseBackingFile(line)).isEmpty();
  }

  @Test
  void aFileIsIdentifiedByItsFileSystemAndInodeNotItsName(@TempDir Path dir) throws IOException {
    Path a = Files.write(dir.resolve("a.img"), new byte[16]);
    Path b = Files.write(dir.resolve("b.img"), new byte[16]);
    Path link = Files.createLink(dir.resolve("hard.img"), a);
    assertThat(FileIdentity.of(a)).isEqualTo(FileIdentity.of(link)).isNotEqualTo(FileIdentity.of(b));
    assertThat(FileIdentity.of(a).deviceNumbers()).isEqualTo(DeviceNumbers.ofFileSystemOf(a));
    assertThat(Optional.of(FileIdentity.of(a)).map(FileIdentity::inode)).contains((Long) Files.getAttribute(a,
        "unix:ino"));
  }
}
