package io.awscsi.core.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Parsers of the text that stat, dumpe2fs, xfs_info and mkfs.xfs print. */
class ToolOutputParsingTest {

  @Test
  void statFsGivesBytesFromFundamentalBlocksAndInodeCounts() {
    var usage = FsStats.parseStatFs("4096 1000 600 550 2048 2000\n");

    assertThat(usage).isEqualTo(new FileSystemUsage(4_096_000, 1_638_400, 2_252_800, 2048, 48, 2000));
  }

  @Test
  void statFsWithUnexpectedOutputIsAnError() {
    assertThatThrownBy(() -> FsStats.parseStatFs("stat: cannot read file system information"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("unexpected output of stat -f");
  }

  @Test
  void dumpe2fsHeaderGivesFileSystemSize() {
    var size = FsResizer.parseDumpe2fs("""
        Filesystem volume name:   <none>
        Inode count:              65536
        Block count:              262144
        Reserved block count:     0
        Free blocks:              249189
        Block size:               4096
        Fragment size:            4096
        """);

    assertThat(size).isEqualTo(new FsResizer.FileSystemSize(262144L * 4096, 4096));
  }

  @Test
  void xfsInfoDataSectionGivesFileSystemSize() {
    var size = FsResizer.parseXfsInfo("""
        meta-data=/dev/loop1             isize=512    agcount=4, agsize=19200 blks
                 =                       sectsz=512   attr=2, projid32bit=1
                 =                       reflink=1    bigtime=1 inobtcount=1 nrext64=0
        data     =                       bsize=4096   blocks=76800, imaxpct=25
                 =                       sunit=0      swidth=0 blks
        naming   =version 2              bsize=4096   ascii-ci=0, ftype=1
        log      =internal log           bsize=4096   blocks=16384, version=2
        """);

    assertThat(size).isEqualTo(new FsResizer.FileSystemSize(76800L * 4096, 4096));
  }

  @Test
  void missingSectionsAreErrorsNotZeroSizes() {
    assertThatThrownBy(() -> FsResizer.parseXfsInfo("xfs_info: /x is not a mounted XFS filesystem"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no data section");
    assertThatThrownBy(() -> FsResizer.parseDumpe2fs("Bad magic number in super-block"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no block count");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      mkfs.xfs version 6.1.0   | 5 | 19 | true
      mkfs.xfs version 5.10.0  | 5 | 19 | false
      mkfs.xfs version 5.10.0  | 5 | 10 | true
      mkfs.xfs version 4.20.0  | 5 | 10 | false
      """)
  void readsTheMkfsXfsVersion(String output, int major, int minor, boolean atLeast) {
    assertThat(Formatter.XfsVersion.parse(output).atLeast(major, minor)).isEqualTo(atLeast);
  }
}
