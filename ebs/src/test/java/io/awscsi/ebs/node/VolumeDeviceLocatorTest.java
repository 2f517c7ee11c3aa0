package io.awscsi.ebs.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Device discovery against a fake /dev, /dev/disk/by-id and /sys/block tree. */
class VolumeDeviceLocatorTest {

  private static final String VOLUME_A = "vol-0aaaaaaaaaaaaaaaa";
  private static final String VOLUME_B = "vol-0bbbbbbbbbbbbbbbb";

  @TempDir Path root;
  private Path dev;
  private Path byId;
  private Path sysBlock;

  @BeforeEach
  void setUp() throws IOException {
    dev = Files.createDirectories(root.resolve("dev"));
    byId = Files.createDirectories(dev.resolve("disk/by-id"));
    sysBlock = Files.createDirectories(root.resolve("sys/block"));
    Files.createDirectories(sysBlock.resolve("vda")); // a disk without serial, as on any VM
  }

  private VolumeDeviceLocator locator(Duration wait) {
    return new VolumeDeviceLocator(byId, sysBlock, dev, new NvmeSerialReader(sysBlock), wait, Duration.ofMillis(20));
  }

  /** An NVMe namespace with this serial, padded with spaces as the controller reports it. */
  private Path nvme(String name, String serial) throws IOException {
    var device = Files.createFile(dev.resolve(name)).toRealPath();
    var deviceDirectory = Files.createDirectories(sysBlock.resolve(name).resolve("device"));
    Files.writeString(deviceDirectory.resolve("serial"), String.format("%-20s\n", serial));
    return device;
  }

  private void link(Path link, Path target) throws IOException {
    Files.createSymbolicLink(link, target);
  }

  @Test
  void followsThePublishContextDevicePathWhenTheSerialMatches() throws IOException {
    var device = nvme("nvme1n1", "vol0aaaaaaaaaaaaaaaa");
    link(dev.resolve("xvdba"), device);

    var found = locator(Duration.ZERO).locate(VOLUME_A, Map.of("devicePath", dev.resolve("xvdba").toString()));

    assertThat(found).isEqualTo(device);
  }

  @Test
  void usesTheByIdLinkWhenThereIsNoDevicePath() throws IOException {
    var device = nvme("nvme2n1", "vol0aaaaaaaaaaaaaaaa");
    link(byId.resolve("nvme-Amazon_Elastic_Block_Store_vol0aaaaaaaaaaaaaaaa"), device);

    assertThat(locator(Duration.ZERO).locate(VOLUME_A, Map.of())).isEqualTo(device);
  }

  @Test
  void findsTheDeviceBySerialWhenUdevMadeNoLinks() throws IOException {
    nvme("nvme1n1", "vol0bbbbbbbbbbbbbbbb");
    var device = nvme("nvme3n1", "vol0aaaaaaaaaaaaaaaa");

    assertThat(locator(Duration.ZERO).locate(VOLUME_A, Map.of("devicePath", dev.resolve("xvdbz-missing").toString())))
        .isEqualTo(dev.resolve("nvme3n1"))
        .isEqualTo(device);
  }

  @Test
  void refusesAStaleLinkToAnotherVolumesDeviceAndFindsTheRightOne() throws IOException {
    var other = nvme("nvme1n1", "vol0bbbbbbbbbbbbbbbb");
    var mine = nvme("nvme2n1", "vol0aaaaaaaaaaaaaaaa");
    link(dev.resolve("xvdba"), other);
    link(byId.resolve("nvme-Amazon_Elastic_Block_Store_vol0aaaaaaaaaaaaaaaa"), other);

    var found = locator(Duration.ZERO).locate(VOLUME_A, Map.of("devicePath", dev.resolve("xvdba").toString()));

    assertThat(found).isEqualTo(mine);
  }

  @Test
  void aStaleLinkAloneIsNeverUsedAndTheFailureNamesEverythingSearched() throws IOException {
    var other = nvme("nvme1n1", "vol0bbbbbbbbbbbbbbbb");
    link(byId.resolve("nvme-Amazon_Elastic_Block_Store_vol0aaaaaaaaaaaaaaaa"), other);
    var devicePath = dev.resolve("xvdba").toString();

    assertThatThrownBy(() -> locator(Duration.ofMillis(100)).locate(VOLUME_A, Map.of("devicePath", devicePath)))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.Unavailable.class))
        .hasMessageContaining("no block device of volume " + VOLUME_A + " appeared within PT0.1S")
        .hasMessageContaining("publish_context devicePath " + devicePath + " (does not exist)")
        .hasMessageContaining("nvme-Amazon_Elastic_Block_Store_vol0aaaaaaaaaaaaaaaa -> " + other
            + " (refused: the device is vol0bbbbbbbbbbbbbbbb, a stale link to another volume)")
        .hasMessageContaining("the serials of the block devices in " + sysBlock + " (none is vol0aaaaaaaaaaaaaaaa)");
  }

  @Test
  void waitsForADeviceThatAppearsLater() throws Exception {
    var appear = Thread.ofVirtual().start(() -> {
      try {
        Thread.sleep(150);
        nvme("nvme4n1", "vol0aaaaaaaaaaaaaaaa");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });

    var found = locator(Duration.ofSeconds(5)).locate(VOLUME_A, Map.of());

    appear.join();
    assertThat(found).isEqualTo(dev.resolve("nvme4n1"));
  }

  @Test
  void acceptsADevicePathWithoutSerialAsUpstreamDoes() throws IOException {
    var xvd = Files.createFile(dev.resolve("xvdf")).toRealPath(); // Xen: no NVMe, no serial in sysfs

    assertThat(locator(Duration.ZERO).locate(VOLUME_B, Map.of("devicePath", xvd.toString()))).isEqualTo(xvd);
  }

  @Test
  void aDeviceWithoutIdentityThatIsNoXenDiskIsNeverUsed() throws IOException {
    var loop = Files.createFile(dev.resolve("loop0")).toRealPath(); // someone else's loop device: no serial
    var devicePath = loop.toString();

    assertThatThrownBy(() -> locator(Duration.ZERO).locate(VOLUME_A, Map.of("devicePath", devicePath)))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.Unavailable.class))
        .hasMessageContaining(devicePath + " -> " + loop + " (refused: it has no identity that proves it is "
            + VOLUME_A + ")");
  }

  @Test
  void aDevicePathOutsideTheDeviceDirectoryIsInvalid() throws IOException {
    var file = Files.writeString(root.resolve("passwd"), "root:x:0:0");
    for (var devicePath : new String[] {file.toString(), dev + "/../passwd", "dev/xvdba", dev.toString(),
        dev + "/xvd\nba"}) {
      assertThatThrownBy(() -> locator(Duration.ZERO).locate(VOLUME_A, Map.of("devicePath", devicePath)))
          .as(devicePath)
          .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.error())
              .isInstanceOfSatisfying(DriverError.InvalidArgument.class,
                  invalid -> assertThat(invalid.field()).isEqualTo("publish_context.devicePath")));
    }
  }

  @Test
  void tellsWhetherADeviceNumberIsProvablyAVolumesDevice() throws IOException {
    nvme("nvme1n1", "vol0aaaaaaaaaaaaaaaa");
    var sysDevBlock = Files.createDirectories(root.resolve("sys/dev/block"));
    Files.createSymbolicLink(sysDevBlock.resolve("259:1"), Path.of("../../block/nvme1n1"));
    Files.createSymbolicLink(sysDevBlock.resolve("254:0"), Path.of("../../block/vda"));
    Files.createDirectories(sysBlock.resolve("xvdf"));
    Files.createSymbolicLink(sysDevBlock.resolve("202:80"), Path.of("../../block/xvdf"));
    var locator = locator(Duration.ZERO);

    assertThat(locator.isDeviceOf("259:1", VOLUME_A)).isTrue();
    assertThat(locator.isDeviceOf("259:1", VOLUME_B)).as("another volume's device").isFalse();
    assertThat(locator.isDeviceOf("254:0", VOLUME_A)).as("a disk without identity (the root disk)").isFalse();
    assertThat(locator.isDeviceOf("202:80", VOLUME_A)).as("a Xen disk cannot have an identity").isTrue();
    assertThat(locator.isDeviceOf("0:42", VOLUME_A)).as("no block device (tmpfs, proc)").isFalse();
    assertThat(locator.isDeviceOf("../../x", VOLUME_A)).isFalse();
    assertThat(locator.describe("259:1")).isEqualTo("nvme1n1 (vol0aaaaaaaaaaaaaaaa)");
  }
}
