package io.awscsi.core.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DeviceContentTest {

  static Stream<Arguments> blkidOutputs() {
    return Stream.of(
        Arguments.of("DEVNAME=/dev/loop0\nTYPE=ext4\n", new DeviceContent.FileSystem("ext4")),
        Arguments.of("DEVNAME=/dev/nvme1n1\nTYPE=xfs\n", new DeviceContent.FileSystem("xfs")),
        Arguments.of("DEVNAME=/dev/nvme1n1\nTYPE=LVM2_member\n", new DeviceContent.FileSystem("LVM2_member")),
        Arguments.of("DEVNAME=/dev/nvme1n1\nPTTYPE=gpt\n", new DeviceContent.PartitionTable("gpt")),
        // A partition table wins over a file-system signature seen on the whole disk: the data is in partitions.
        Arguments.of("DEVNAME=/dev/sdb\nTYPE=vfat\nPTTYPE=dos\n", new DeviceContent.PartitionTable("dos")));
  }

  @ParameterizedTest
  @MethodSource("blkidOutputs")
  void readsTheTypeOrPartitionTableFromExportOutput(String output, DeviceContent expected) {
    assertThat(DeviceContent.parseBlkidExport(output)).isEqualTo(expected);
  }

  @Test
  void refusesToCallAnUnderstoodSignatureEmpty() {
    assertThatThrownBy(() -> DeviceContent.parseBlkidExport("DEVNAME=/dev/loop0\nUSAGE=other\n"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("neither TYPE nor PTTYPE");
  }

  @Test
  void anEmptyPartitionIsOnlyItsEntryInTheDisksTable() {
    var emptyPartition = "DEVNAME=/dev/nvme1n1p1\nPART_ENTRY_SCHEME=dos\nPART_ENTRY_TYPE=0x83\nPART_ENTRY_NUMBER=1\n";
    assertThat(DeviceContent.onlyPartitionEntry(emptyPartition)).isTrue();
    assertThat(DeviceContent.namesContent(emptyPartition)).isFalse();
    assertThat(DeviceContent.onlyPartitionEntry(emptyPartition + "USAGE=other\n")).isFalse();
    assertThat(DeviceContent.onlyPartitionEntry("DEVNAME=/dev/nvme1n1p1\n")).isFalse();
    assertThat(DeviceContent.namesContent(emptyPartition + "TYPE=ext4\n")).isTrue();
  }
}
