package io.awscsi.core.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.host.MountOptions.Family;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class MountOptionsTest {

  static Stream<Arguments> accepted() {
    return Stream.of(
        Arguments.of(Family.EXT, List.of("noatime", "data=ordered", "commit=30", "errors=remount-ro", "discard")),
        Arguments.of(Family.EXT, List.of("ro", "nodev,nosuid", "barrier=0", "user_xattr", "acl")),
        Arguments.of(Family.XFS, List.of("nouuid", "logbsize=256k", "allocsize=64m", "inode64", "largeio")),
        Arguments.of(Family.XFS, List.of("noatime", "swalloc", "attr2", "prjquota")),
        Arguments.of(Family.NFS, List.of("tls", "iam", "accesspoint=fsap-0123456789abcdef0", "noresvport")),
        Arguments.of(Family.NFS, List.of("mounttargetip=10.0.1.17", "az=us-east-1a", "rsize=1048576", "hard",
            "timeo=600", "retrans=2", "nfsvers=4.1", "lookupcache=pos", "actimeo=30", "crossaccount",
            "netns=/proc/1/ns/net", "awsprofile=team-a", "noocsp")),
        Arguments.of(Family.EXT, List.of("context=\"system_u:object_r:container_file_t:s0:c12,c34\"")));
  }

  @ParameterizedTest
  @MethodSource("accepted")
  void acceptsOptionsOnTheFamilyAllowlist(Family family, List<String> options) {
    var validated = MountOptions.validate(family, options);

    assertThat(String.join(",", validated)).isEqualTo(String.join(",", options));
  }

  @ParameterizedTest(name = "{0}: [{1}]")
  @CsvSource(delimiter = '|', emptyValue = "", textBlock = """
      EXT | bind                  | bind                  | the driver decides when to bind mount
      XFS | rbind                 | rbind                 | the driver decides when to bind mount
      EXT | remount               | remount               | the driver decides when to remount
      NFS | move                  | move                  | moving mounts
      EXT | ro,bind               | bind                  | the driver decides when to bind mount
      EXT | loop                  | loop                  | never mounted through a loop device
      XFS | offset=4096           | offset=4096           | mounted whole
      EXT | rshared               | rshared               | mount propagation
      XFS | make-private          | make-private          | mount propagation
      EXT | users                 | users                 | user mounts
      NFS | x-systemd.automount   | x-systemd.automount   | userspace mount helper
      EXT | nouuid                | nouuid                | not allowed for ext3/ext4 volumes
      XFS | data=writeback        | data=writeback        | not allowed for xfs volumes
      NFS | noatimex              | noatimex              | not allowed for NFS/EFS volumes
      EXT | errors=panic          | errors=panic          | value that is not allowed
      EXT | commit=soon           | commit=soon           | value that is not allowed
      NFS | accesspoint=fsap-1;rm | accesspoint=fsap-1;rm | value that is not allowed
      NFS | nfsvers=2             | nfsvers=2             | value that is not allowed
      XFS | 'noatime, ro'         | ' ro'                 | whitespace
      EXT | ''                    | ''                    | empty
      EXT | 'ro,,noatime'         | ''                    | empty
      """)
  void refusesOptionsOutsideTheAllowlistNamingTheOptionAndReason(
      Family family, String options, String offending, String reason) {
    assertThatThrownBy(() -> MountOptions.validate(family, List.of(options)))
        .isInstanceOfSatisfying(InvalidMountOptionException.class, e -> assertThat(e.option()).isEqualTo(offending))
        .hasMessageContaining(reason);
  }

  @Test
  void removesDuplicatesKeepingOrder() {
    assertThat(MountOptions.validate(Family.XFS, List.of("nouuid", "noatime,nouuid", "ro")))
        .containsExactly("nouuid", "noatime", "ro");
  }

  @Test
  void splitsOnCommasOutsideQuotesOnly() {
    assertThat(MountOptions.split("ro,context=\"a:b:c0,c1\",noatime"))
        .containsExactly("ro", "context=\"a:b:c0,c1\"", "noatime");
  }

  @ParameterizedTest
  @CsvSource({"ext4,EXT", "ext3,EXT", "XFS,XFS", "efs,NFS", "nfs4,NFS"})
  void mapsFileSystemTypesToFamilies(String fsType, Family family) {
    assertThat(Family.of(fsType)).contains(family);
  }

  @Test
  void hasNoFamilyForUnknownTypes() {
    assertThat(Family.of("btrfs")).isEmpty();
  }

  @Test
  void rwContradictsAReadOnlyMountWhereverItIsWritten() {
    for (var options : List.of(List.of("rw"), List.of("nosuid", "rw"), List.of("nosuid,rw"), List.of("RW"))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> MountOptions.checkReadOnly(true, options))
          .as(options.toString()).isInstanceOf(InvalidMountOptionException.class).hasMessageContaining("rw");
    }
    MountOptions.checkReadOnly(false, List.of("rw"));
    MountOptions.checkReadOnly(true, List.of("ro", "nosuid", "noatime"));
  }
}
