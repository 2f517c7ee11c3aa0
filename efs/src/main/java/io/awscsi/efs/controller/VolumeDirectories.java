package io.awscsi.efs.controller;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.efs.mount.FileSystemRootMounts;
import io.awscsi.efs.volume.EfsPaths;
import io.awscsi.efs.volume.VolumeHandle;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/** Volume directories the controller makes and removes with the file system mounted through the mount backend. */
final class VolumeDirectories {

  private static final Logger LOG = LogManager.getLogger(VolumeDirectories.class);

  private final FileSystemRootMounts mounts;
  /** One CreateVolume at a time per file system between the nesting check and the ledger record. */
  private final Map<String, Lock> creations = new ConcurrentHashMap<>();

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
      Lock lock = creations.computeIfAbsent(fileSystemId, id -> new ReentrantLock());
      lock.lock();
      try {
        if (DirectoryNames.reserved(entry.directory())) {
          throw DriverException.invalidArgument("name", "directory " + DirectoryNames.quoted(entry.directory())
              + " is reserved for the driver's own records");
        }
        boolean existedBefore = FileSystemTree.existingDirectory(root, entry.directory()).isPresent();
        Optional<DirectoryLedger.Entry> enclosing = enclosingVolume(root, fileSystemId, entry);
        if (enclosing.isPresent()) {
          throw DriverException.alreadyExists("directory " + DirectoryNames.quoted(entry.directory()) + " of volume "
              + entry.volumeId() + " would lie inside " + enclosing.get().directory() + ", the directory of volume "
              + enclosing.get().volumeId() + "; no volume's directory may contain another's: use another name, "
              + "subPathPattern or basePath");
        }
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
      } finally {
        lock.unlock();
      }
    });
  }

  /**
   * The recorded volume whose directory is a strict ancestor of the new one, if any. A recorded descendant cannot
   * exist without the new directory existing, which {@link #create} refuses unless the record is this volume's.
   * Creations on one file system are serialized so two concurrent calls cannot nest into each other unseen.
   */
  private static Optional<DirectoryLedger.Entry> enclosingVolume(Path root, String fileSystemId,
      DirectoryLedger.Entry entry) throws IOException {
    String parent = EfsPaths.clean(entry.directory());
    while (!parent.equals(EfsPaths.ROOT)) {
      parent = EfsPaths.clean(parent.substring(0, parent.lastIndexOf('/')));
      if (parent.equals(EfsPaths.ROOT)) {
        break;
      }
      Optional<DirectoryLedger.Entry> recorded = DirectoryLedger.read(root,
          VolumeHandle.ofDirectory(fileSystemId, parent).volumeId());
      if (recorded.isPresent() && !recorded.get().volumeId().equals(entry.volumeId())) {
        return recorded;
      }
    }
    return Optional.empty();
  }

  /**
   * Why the directory at {@code path} must be kept although its own volume is deleted: it is the driver's own state,
   * or another recorded volume's directory lies inside it (made before names were confined to one directory name,
   * or by a StorageClass whose basePath lies inside this volume). Empty when it may go.
   */
  private static Optional<String> containsOtherVolumes(Path root, String path, String volumeId) throws IOException {
    if (DirectoryNames.reserved(path)) {
      return Optional.of(DirectoryNames.quoted(path) + " is reserved for the driver's own records");
    }
    for (DirectoryLedger.Entry other : DirectoryLedger.entries(root)) {
      if (!other.volumeId().equals(volumeId)
          && EfsPaths.isStrictlyBelow(EfsPaths.clean(other.directory()), EfsPaths.clean(path))) {
        return Optional.of("volume " + other.volumeId() + " has its directory " + other.directory() + " inside "
            + path + "; delete that volume first");
      }
    }
    return Optional.empty();
  }

  /** Removes a directory the guard allowed, unless it holds the driver's records or another volume's directory. */
  void remove(String fileSystemId, List<String> mountOptions, String path, String volumeId) {
    mounts.withRoot(fileSystemId, mountOptions, root -> {
      try {
        Optional<String> keep = containsOtherVolumes(root, path, volumeId);
        if (keep.isPresent()) {
          LOG.warn("keeping the directory {} of volume {} on {}: {}", path, volumeId, fileSystemId, keep.get());
          return null;
        }
      } catch (IOException e) {
        throw DriverException.internal("cannot read the directory records on " + fileSystemId + " before removing "
            + path + " of volume " + volumeId + ": " + e.getMessage() + "; DeleteVolume will be retried", e);
      }
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
          Optional<String> keep = containsOtherVolumes(root, path, handle.volumeId());
          if (keep.isPresent()) {
            return new DirectoryDeletion.Keep(keep.get());
          }
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
