package io.awscsi.efs.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.efs.cloud.AccessPoint;
import io.awscsi.efs.cloud.RootDirectory;
import io.awscsi.efs.volume.VolumeHandle;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One test per refused deletion, and the allowed ones. */
class RootDirectoryGuardTest {

  private static final String FS = "fs-0123abcd";

  private static AccessPoint accessPoint(String id, String root, Map<String, String> tags) {
    return new AccessPoint(id, FS, "token", 50000, 50000, new RootDirectory(root, 50000, 50000, "0700"), tags,
        "available");
  }

  private static Map<String, String> owned(String basePath, String directory) {
    return Map.of(AccessPointTags.CLUSTER_KEY, "true", AccessPointTags.BASE_PATH_KEY, basePath,
        AccessPointTags.DIRECTORY_KEY, directory);
  }

  private static DirectoryDeletion decide(AccessPoint ap, AccessPoint... others) {
    List<AccessPoint> all = new java.util.ArrayList<>(List.of(others));
    all.add(ap);
    return RootDirectoryGuard.forAccessPoint(ap, all);
  }

  @Test
  void removesTheDirectoryRecordedForThisAccessPoint() {
    AccessPoint ap = accessPoint("fsap-00000001", "/dynamic/pvc-1", owned("/dynamic", "/dynamic/pvc-1"));

    assertThat(decide(ap)).isEqualTo(new DirectoryDeletion.Remove("/dynamic/pvc-1"));
  }

  @Test
  void removesADirectoryBelowTheFileSystemRootBasePath() {
    AccessPoint ap = accessPoint("fsap-00000001", "/pvc-1", owned("/", "/pvc-1"));

    assertThat(decide(ap)).isEqualTo(new DirectoryDeletion.Remove("/pvc-1"));
  }

  @Test
  void keepsTheFileSystemRoot() {
    AccessPoint ap = accessPoint("fsap-00000001", "/", owned("/", "/"));

    assertThat(decide(ap)).isInstanceOfSatisfying(DirectoryDeletion.Keep.class,
        k -> assertThat(k.reason()).contains("file-system root"));
  }

  @Test
  void keepsARootThatCleansToTheFileSystemRoot() {
    AccessPoint ap = accessPoint("fsap-00000001", "//./", owned("/", "//./"));

    assertThat(decide(ap)).isInstanceOf(DirectoryDeletion.Keep.class);
  }

  @Test
  void keepsTheBasePathItself() {
    AccessPoint ap = accessPoint("fsap-00000001", "/dynamic", owned("/dynamic", "/dynamic"));

    assertThat(decide(ap)).isInstanceOfSatisfying(DirectoryDeletion.Keep.class,
        k -> assertThat(k.reason()).contains("basePath /dynamic itself"));
  }

  @Test
  void keepsADirectoryOutsideItsRecordedBasePath() {
    AccessPoint ap = accessPoint("fsap-00000001", "/other/pvc-1", owned("/dynamic", "/other/pvc-1"));

    assertThat(decide(ap)).isInstanceOfSatisfying(DirectoryDeletion.Keep.class,
        k -> assertThat(k.reason()).contains("not below its basePath"));
  }

  @Test
  void keepsAnAccessPointWithoutOwnershipTags() {
    AccessPoint ap = accessPoint("fsap-00000001", "/dynamic/pvc-1", Map.of(AccessPointTags.CLUSTER_KEY, "true"));

    assertThat(decide(ap)).isInstanceOfSatisfying(DirectoryDeletion.Keep.class,
        k -> assertThat(k.reason()).contains("has no").contains("made for this volume alone"));
  }

  @Test
  void keepsARootThatDiffersFromTheRecordedDirectory() {
    AccessPoint ap = accessPoint("fsap-00000001", "/dynamic", owned("/dynamic", "/dynamic/pvc-1"));

    assertThat(decide(ap)).isInstanceOfSatisfying(DirectoryDeletion.Keep.class,
        k -> assertThat(k.reason()).contains("not the one recorded"));
  }

  @Test
  void keepsARootWithParentSegments() {
    AccessPoint ap = accessPoint("fsap-00000001", "/dynamic/../pvc-1", owned("/dynamic", "/dynamic/../pvc-1"));

    assertThat(decide(ap)).isInstanceOfSatisfying(DirectoryDeletion.Keep.class,
        k -> assertThat(k.reason()).contains("\"..\""));
  }

  @Test
  void keepsARecordWithParentSegments() {
    AccessPoint ap = accessPoint("fsap-00000001", "/pvc-1", owned("/x/..", "/pvc-1"));

    assertThat(decide(ap)).isInstanceOfSatisfying(DirectoryDeletion.Keep.class,
        k -> assertThat(k.reason()).contains("\"..\""));
  }

  @Test
  void keepsADirectoryAnotherAccessPointUses() {
    AccessPoint ap = accessPoint("fsap-00000001", "/dynamic/pvc-1", owned("/dynamic", "/dynamic/pvc-1"));
    AccessPoint same = accessPoint("fsap-00000002", "/dynamic/pvc-1", Map.of());

    assertThat(decide(ap, same)).isInstanceOfSatisfying(DirectoryDeletion.Keep.class,
        k -> assertThat(k.reason()).contains("fsap-00000002"));
  }

  @Test
  void keepsADirectoryThatHoldsAnotherAccessPointsRoot() {
    AccessPoint ap = accessPoint("fsap-00000001", "/dynamic/pvc-1", owned("/dynamic", "/dynamic/pvc-1"));
    AccessPoint inside = accessPoint("fsap-00000002", "/dynamic/pvc-1/sub", Map.of());

    assertThat(decide(ap, inside)).isInstanceOf(DirectoryDeletion.Keep.class);
  }

  @Test
  void aSiblingWithACommonPrefixDoesNotCount() {
    AccessPoint ap = accessPoint("fsap-00000001", "/dynamic/pvc-1", owned("/dynamic", "/dynamic/pvc-1"));
    AccessPoint sibling = accessPoint("fsap-00000002", "/dynamic/pvc-10", Map.of());
    AccessPoint parent = accessPoint("fsap-00000003", "/dynamic", Map.of());

    assertThat(decide(ap, sibling, parent)).isEqualTo(new DirectoryDeletion.Remove("/dynamic/pvc-1"));
  }

  private static final VolumeHandle DIR = VolumeHandle.parse("efs:fs-0123abcd:/base/pvc-1");

  @Test
  void removesARecordedDirectoryVolume() {
    var entry = new DirectoryLedger.Entry(DIR.volumeId(), "/base", "/base/pvc-1", 0);

    assertThat(RootDirectoryGuard.forDirectory(DIR, Optional.of(entry)))
        .isEqualTo(new DirectoryDeletion.Remove("/base/pvc-1"));
  }

  @Test
  void keepsADirectoryVolumeWithoutARecord() {
    assertThat(RootDirectoryGuard.forDirectory(DIR, Optional.empty()))
        .isInstanceOfSatisfying(DirectoryDeletion.Keep.class, k -> assertThat(k.reason()).contains("no record"));
  }

  @Test
  void keepsADirectoryVolumeWhoseRecordNamesAnotherVolume() {
    var entry = new DirectoryLedger.Entry("efs:fs-0123abcd:/base/pvc-2", "/base", "/base/pvc-1", 0);

    assertThat(RootDirectoryGuard.forDirectory(DIR, Optional.of(entry))).isInstanceOf(DirectoryDeletion.Keep.class);
  }

  @Test
  void keepsADirectoryVolumeThatIsItsBasePath() {
    VolumeHandle handle = VolumeHandle.parse("efs:fs-0123abcd:/base");
    var entry = new DirectoryLedger.Entry(handle.volumeId(), "/base", "/base", 0);

    assertThat(RootDirectoryGuard.forDirectory(handle, Optional.of(entry)))
        .isInstanceOfSatisfying(DirectoryDeletion.Keep.class, k -> assertThat(k.reason()).contains("itself"));
  }

  @Test
  void keepsADirectoryVolumeAtTheFileSystemRoot() {
    VolumeHandle handle = VolumeHandle.parse("efs:fs-0123abcd");
    var entry = new DirectoryLedger.Entry(handle.volumeId(), "/", "/", 0);

    assertThat(RootDirectoryGuard.forDirectory(handle, Optional.of(entry)))
        .isInstanceOfSatisfying(DirectoryDeletion.Keep.class, k -> assertThat(k.reason()).contains("root"));
  }

  @Test
  void keepsADirectoryVolumeWhoseRecordNamesAnotherDirectory() {
    var entry = new DirectoryLedger.Entry(DIR.volumeId(), "/base", "/base/pvc-9", 0);

    assertThat(RootDirectoryGuard.forDirectory(DIR, Optional.of(entry)))
        .isInstanceOfSatisfying(DirectoryDeletion.Keep.class, k -> assertThat(k.reason()).contains("not the one"));
  }
}
