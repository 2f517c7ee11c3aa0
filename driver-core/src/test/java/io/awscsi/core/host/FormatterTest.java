package io.awscsi.core.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.host.RecordingCommandRunner.Reply;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** mkfs command lines and the refusal to format, with a recording runner (no device is touched). */
class FormatterTest {

  private static final Path DEVICE = Path.of("/dev/nvme1n1");

  private static RecordingCommandRunner emptyDevice() {
    return new RecordingCommandRunner()
        .on(HostTool.BLKID, Reply.exit(2, ""))
        .on(command -> command.tool() == HostTool.MKFS_XFS && command.arguments().equals(List.of("-V")),
            command -> Reply.ok("mkfs.xfs version 6.1.0\n"));
  }

  static Stream<Arguments> mkfsCommands() {
    var all = new MkfsOptions(4096, 512, 16384L, 100000L, true, 65536, true, false);
    return Stream.of(
        Arguments.of("ext4", MkfsOptions.defaults(),
            "mkfs.ext4 -F -m0 -E lazy_itable_init=1,nodiscard /dev/nvme1n1"),
        Arguments.of("ext4", all, "mkfs.ext4 -F -m0 -E lazy_itable_init=1,nodiscard -b 4096 -I 512 -i 16384 "
            + "-N 100000 -O bigalloc -C 65536 -O encrypt /dev/nvme1n1"),
        Arguments.of("ext4", new MkfsOptions(null, null, null, null, false, null, true, false),
            "mkfs.ext4 -F -m0 -E lazy_itable_init=1,nodiscard -O encrypt /dev/nvme1n1"),
        Arguments.of("ext3", new MkfsOptions(1024, 256, 8192L, null, false, null, false, false),
            "mkfs.ext3 -F -m0 -E nodiscard -b 1024 -I 256 -i 8192 /dev/nvme1n1"),
        Arguments.of("xfs", MkfsOptions.defaults(), "mkfs.xfs -K /dev/nvme1n1"),
        Arguments.of("xfs", new MkfsOptions(4096, 1024, null, null, false, null, false, false),
            "mkfs.xfs -K -b size=4096 -i size=1024 /dev/nvme1n1"),
        Arguments.of("XFS", new MkfsOptions(null, 512, null, null, false, null, false, true),
            "mkfs.xfs -K -m bigtime=0,inobtcount=0,reflink=0 -i size=512,nrext64=0 /dev/nvme1n1"));
  }

  @ParameterizedTest
  @MethodSource("mkfsCommands")
  void formatsAnEmptyDeviceWithTheseArguments(String fsType, MkfsOptions options, String expected) {
    var runner = emptyDevice();

    new Formatter(runner).format(DEVICE, fsType, options);

    var commandLines = runner.commandLines();
    assertThat(commandLines.getLast()).isEqualTo(expected);
    assertThat(commandLines.get(commandLines.size() - 2))
        .as("the device is probed right before mkfs").isEqualTo("blkid -p -s TYPE -s PTTYPE -o export /dev/nvme1n1");
  }

  @Test
  void legacyXfsLeavesOutFeaturesAnOldMkfsDoesNotKnow() {
    var runner = new RecordingCommandRunner()
        .on(HostTool.BLKID, Reply.exit(2, ""))
        .on(command -> command.tool() == HostTool.MKFS_XFS && command.arguments().equals(List.of("-V")),
            command -> Reply.ok("mkfs.xfs version 5.4.0\n"));

    new Formatter(runner).format(DEVICE, "xfs", MkfsOptions.defaults().withXfsLegacyFormat(true));

    assertThat(runner.commandLines().getLast()).isEqualTo("mkfs.xfs -K -m reflink=0 /dev/nvme1n1");
  }

  static Stream<Arguments> devicesWithData() {
    return Stream.of(
        Arguments.of("DEVNAME=/dev/nvme1n1\nTYPE=xfs\n", "a xfs file system"),
        Arguments.of("DEVNAME=/dev/nvme1n1\nPTTYPE=gpt\n", "a gpt partition table"));
  }

  @ParameterizedTest
  @MethodSource("devicesWithData")
  void neverRunsMkfsOnADeviceThatHoldsSomething(String blkidOutput, String described) {
    var runner = new RecordingCommandRunner().on(HostTool.BLKID, Reply.ok(blkidOutput));

    assertThatThrownBy(() -> new Formatter(runner).format(DEVICE, "ext4", MkfsOptions.defaults()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("refusing to format /dev/nvme1n1: it already holds " + described);
    assertThat(runner.commandLines(HostTool.MKFS_EXT4)).isEmpty();
  }

  @Test
  void anEmptyPartitionIsUnformattedButAnUnknownSignatureOnItIsNot() {
    var entry = "DEVNAME=/dev/nvme1n1p1\nPART_ENTRY_SCHEME=dos\nPART_ENTRY_NUMBER=1\n";
    var partition = Path.of("/dev/nvme1n1p1");
    var empty = new RecordingCommandRunner()
        .on(HostTool.BLKID, Reply.ok(entry))
        .on(command -> command.arguments().contains("-s"), command -> Reply.ok(""));
    assertThat(new Formatter(empty).probe(partition)).isEqualTo(new DeviceContent.Unformatted());

    var unknown = new RecordingCommandRunner()
        .on(HostTool.BLKID, Reply.ok(entry + "USAGE=other\n"))
        .on(command -> command.arguments().contains("-s"), command -> Reply.ok(""));
    assertThatThrownBy(() -> new Formatter(unknown).probe(partition)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("neither TYPE nor PTTYPE");
  }

  @Test
  void anAmbivalentProbeIsAnErrorNotAnEmptyDevice() {
    var runner = new RecordingCommandRunner().on(HostTool.BLKID,
        Reply.exit(8, "blkid: /dev/nvme1n1: ambivalent result (probably more filesystems on the device)"));

    assertThatThrownBy(() -> new Formatter(runner).format(DEVICE, "ext4", MkfsOptions.defaults()))
        .isInstanceOf(CommandException.Failed.class)
        .hasMessageContaining("exited with 8: blkid: /dev/nvme1n1: ambivalent result");
    assertThat(runner.commandLines(HostTool.MKFS_EXT4)).isEmpty();
  }

  @Test
  void optionsTheTypeDoesNotSupportAreRefusedBeforeAnythingRuns() {
    var runner = emptyDevice();
    var options = new MkfsOptions(null, null, 4096L, 10L, true, null, true, false);

    assertThatThrownBy(() -> new Formatter(runner).format(DEVICE, "xfs", options))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("mkfs options [bytesPerInode, numberOfInodes, ext4BigAlloc, ext4EncryptionSupport] are not supported for xfs");
    assertThat(runner.commands()).isEmpty();
  }

  @Test
  void unsupportedTypesAreRefused() {
    assertThatThrownBy(() -> new Formatter(emptyDevice()).format(DEVICE, "btrfs", MkfsOptions.defaults()))
        .hasMessageContaining("supported: ext3, ext4, xfs");
  }
}
