package io.awscsi.efs.controller;

import io.awscsi.efs.cloud.AccessPoint;
import io.awscsi.efs.volume.EfsPaths;
import io.awscsi.efs.volume.VolumeHandle;
import java.util.List;
import java.util.Optional;

/**
 * Decides whether a volume's directory may be deleted, with guards upstream lacks (issues #1085, #1695): never the
 * file-system root, never the base path itself, never a path with "..", and only a directory this driver recorded as
 * made for exactly this volume, which no other access point uses. Every refusal keeps the data and says why.
 */
final class RootDirectoryGuard {

  private RootDirectoryGuard() {}

  /**
   * An access point's root directory. The driver records the base path and directory in the access point's tags
   * when it creates one for a single volume; without that record (created by hand, by upstream, with tagging off,
   * or reusable) the directory is kept.
   *
   * @param fileSystemAccessPoints every access point of the file system, to find other users of the directory
   */
  static DirectoryDeletion forAccessPoint(AccessPoint accessPoint, List<AccessPoint> fileSystemAccessPoints) {
    String id = accessPoint.accessPointId();
    String root = accessPoint.rootDirectory().path();
    Optional<DirectoryDeletion.Keep> unsafe = unsafePath(root, "access point " + id);
    if (unsafe.isPresent()) {
      return unsafe.get();
    }
    String path = EfsPaths.clean(root);
    Optional<AccessPointTags.Ownership> ownership = AccessPointTags.ownership(accessPoint.tags());
    if (ownership.isEmpty()) {
      return new DirectoryDeletion.Keep("access point " + id + " has no " + AccessPointTags.DIRECTORY_KEY + " and "
          + AccessPointTags.BASE_PATH_KEY + " tags, so nothing proves " + path + " was made for this volume alone "
          + "(created by hand, by another driver, with enableTagging false, or with reuseAccessPoint)");
    }
    Optional<DirectoryDeletion.Keep> mismatch = recorded(path, ownership.get().directory(),
        ownership.get().basePath(), "access point " + id);
    if (mismatch.isPresent()) {
      return mismatch.get();
    }
    for (AccessPoint other : fileSystemAccessPoints) {
      if (!other.accessPointId().equals(id)
          && EfsPaths.isAtOrBelow(EfsPaths.clean(other.rootDirectory().path()), path)) {
        return new DirectoryDeletion.Keep("access point " + other.accessPointId() + " also uses " + path
            + " (its root is " + other.rootDirectory().path() + ")");
      }
    }
    return new DirectoryDeletion.Remove(path);
  }

  /**
   * An efs-dir volume's directory, with the ledger entry written when it was created (absent when the driver did
   * not create it).
   */
  static DirectoryDeletion forDirectory(VolumeHandle handle, Optional<DirectoryLedger.Entry> entry) {
    String what = "volume " + handle.volumeId();
    if (entry.isEmpty()) {
      return new DirectoryDeletion.Keep("the file system has no record that this driver created " + handle.path()
          + " for " + what);
    }
    if (!entry.get().volumeId().equals(handle.volumeId())) {
      return new DirectoryDeletion.Keep("the record for " + what + " names volume " + entry.get().volumeId());
    }
    Optional<DirectoryDeletion.Keep> unsafe = unsafePath(handle.path(), what);
    if (unsafe.isPresent()) {
      return unsafe.get();
    }
    return recorded(handle.path(), entry.get().directory(), entry.get().basePath(), what)
        .<DirectoryDeletion>map(k -> k).orElseGet(() -> new DirectoryDeletion.Remove(handle.path()));
  }

  private static Optional<DirectoryDeletion.Keep> unsafePath(String path, String what) {
    if (EfsPaths.climbs(path)) {
      return Optional.of(new DirectoryDeletion.Keep("the directory of " + what + ", " + path
          + ", contains \"..\""));
    }
    if (EfsPaths.clean(path).equals(EfsPaths.ROOT)) {
      return Optional.of(new DirectoryDeletion.Keep("the directory of " + what + " is the file-system root"));
    }
    return Optional.empty();
  }

  private static Optional<DirectoryDeletion.Keep> recorded(String path, String recordedDirectory,
      String recordedBasePath, String what) {
    if (EfsPaths.climbs(recordedDirectory) || EfsPaths.climbs(recordedBasePath)) {
      return Optional.of(new DirectoryDeletion.Keep("the record of " + what + " contains \"..\""));
    }
    String basePath = EfsPaths.clean(recordedBasePath);
    if (!path.equals(EfsPaths.clean(recordedDirectory))) {
      return Optional.of(new DirectoryDeletion.Keep("the directory of " + what + ", " + path
          + ", is not the one recorded when it was created, " + recordedDirectory));
    }
    if (path.equals(basePath)) {
      return Optional.of(new DirectoryDeletion.Keep("the directory of " + what + " is the basePath " + basePath
          + " itself"));
    }
    if (!EfsPaths.isStrictlyBelow(path, basePath)) {
      return Optional.of(new DirectoryDeletion.Keep("the directory of " + what + ", " + path
          + ", is not below its basePath " + basePath));
    }
    return Optional.empty();
  }
}
