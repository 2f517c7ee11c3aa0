package io.awscsi.efs.controller;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.efs.mount.FileSystemRootMounts;
import io.awscsi.efs.volume.EfsPaths;
import io.awscsi.efs.volume.VolumeHandle;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/** Volume directories the controller makes and removes with the file system mounted through the mount backend. */
final class VolumeDirectories {

  private static final Logger LOG = LogManager.getLogger(VolumeDirectories.class);

  private final FileSystemRootMounts mounts;

  VolumeDirectories(FileSystemRootMounts mounts) {
    this.mounts = mounts;
  }

  /**
   * Creates an efs-dir volume's directory with its owner and mode, after recording it in the ledger. A repeated call
   * for the same volume finds its record and succeeds if the capacity fits; a directory that exists without a record
   * for this volume belongs to someone else and is refused.
   *
   * @return the volume's capacity as first recorded
   */
  long create(String fileSystemId, List<String> mountOptions, DirectoryLedger.Entry entry, CapacityRange capacity,
      long uid, long gid, int mode) {
    return mounts.withRoot(fileSystemId, mountOptions, root -> {
      try {
        boolean existedBefore = FileSystemTree.existingDirectory(root, entry.directory()).isPresent();
        DirectoryLedger.Recorded recorded = DirectoryLedger.record(root, entry);
        if (!recorded.entry().samePlace(entry)) {
          throw DriverException.alreadyExists("volume " + entry.volumeId() + " was created before under basePath "
              + recorded.entry().basePath() + " as " + recorded.entry().directory() + ", not as "
              + entry.directory());
        }
        if (recorded.written() && existedBefore) {
          DirectoryLedger.remove(root, entry.volumeId());
          throw DriverException.alreadyExists("directory " + entry.directory() + " already exists on "
              + fileSystemId + " and was not created by this driver for volume " + entry.volumeId()
              + "; use another subPathPattern or basePath, or set ensureUniqueDirectory");
        }
        if (!recorded.written() && recorded.entry().otherRequest(entry)) {
          throw DriverException.alreadyExists("volume " + entry.volumeId() + " was created before with other "
              + "parameters or capabilities; use another name or delete that volume first");
        }
        long recordedCapacity = recorded.entry().capacityBytes();
        if (!recorded.written() && recordedCapacity >= 0) {
          RecordedCapacity.requireCompatible(entry.volumeId(), recordedCapacity, capacity);
        }
        boolean created = FileSystemTree.createDirectory(root, entry.directory(), uid, gid, mode);
        LOG.info("{} directory {} on {} for volume {}", created ? "created" : "found", entry.directory(),
            fileSystemId, entry.volumeId());
        return recordedCapacity >= 0 ? recordedCapacity : entry.capacityBytes();
      } catch (IOException e) {
        throw DriverException.internal("cannot create directory " + entry.directory() + " on " + fileSystemId
            + " for volume " + entry.volumeId() + ": " + e.getMessage(), e);
      }
    });
  }

  /** Removes a directory the guard allowed. */
  void remove(String fileSystemId, List<String> mountOptions, String path, String volumeId) {
    mounts.withRoot(fileSystemId, mountOptions, root -> {
      removeUnder(root, fileSystemId, path, volumeId);
      return null;
    });
  }

  /** Deletes an efs-dir volume's directory and its ledger record when the guard allows it; otherwise keeps both. */
  DirectoryDeletion removeRecorded(String fileSystemId, List<String> mountOptions, VolumeHandle handle) {
    return mounts.withRoot(fileSystemId, mountOptions, root -> {
      try {
        Optional<DirectoryLedger.Entry> entry = DirectoryLedger.read(root, handle.volumeId());
        if (entry.isEmpty() && !handle.path().equals(EfsPaths.ROOT)
            && FileSystemTree.existingDirectory(root, handle.path()).isEmpty()) {
          return new DirectoryDeletion.Gone();
        }
        DirectoryDeletion decision = RootDirectoryGuard.forDirectory(handle, entry);
        if (decision instanceof DirectoryDeletion.Remove(String path)) {
          removeUnder(root, fileSystemId, path, handle.volumeId());
          DirectoryLedger.remove(root, handle.volumeId());
        }
        return decision;
      } catch (IOException e) {
        throw DriverException.internal("cannot read the directory record of volume " + handle.volumeId() + " on "
            + fileSystemId + ": " + e.getMessage(), e);
      }
    });
  }

  private static void removeUnder(Path root, String fileSystemId, String path, String volumeId) {
    try {
      if (!FileSystemTree.removeTree(root, path)) {
        LOG.info("directory {} of volume {} on {} is already gone", path, volumeId, fileSystemId);
        return;
      }
      LOG.info("removed directory {} of volume {} on {}", path, volumeId, fileSystemId);
    } catch (IOException e) {
      throw DriverException.internal("cannot remove directory " + path + " of volume " + volumeId + " on "
          + fileSystemId + ": " + e.getMessage() + "; the volume is kept and DeleteVolume will be retried", e);
    }
  }
}
