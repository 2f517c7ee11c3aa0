package io.awscsi.efs.mount;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.CommandException;
import io.awscsi.core.host.Mounter;
import io.awscsi.core.provider.CallBudget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The controller's mounts of whole file systems, for creating and removing volume directories. A file system is
 * mounted once at {@code <workDir>/<fs-id>} while any operation needs it and unmounted when the last one finishes, so
 * fifty concurrent efs-dir CreateVolume calls make one mount, not fifty.
 */
public final class FileSystemRootMounts {

  private static final Logger LOG = LogManager.getLogger(FileSystemRootMounts.class);

  private static final class Entry {
    int users;
    boolean mounted;
  }

  private final EfsMountBackend backend;
  private final Mounter mounter;
  private final Path workDir;
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();

  public FileSystemRootMounts(EfsMountBackend backend, Mounter mounter, Path workDir) {
    this.backend = backend;
    this.mounter = mounter;
    this.workDir = workDir.toAbsolutePath().normalize();
  }

  /**
   * Runs {@code work} with the file system's root mounted; {@code work} gets the mount point.
   *
   * @param options efs-utils options of the mount (used by the first of concurrent users)
   */
  public <T> T withRoot(String fileSystemId, List<String> options, Function<Path, T> work) {
    Path mountPoint = acquire(fileSystemId, options);
    try {
      return work.apply(mountPoint);
    } finally {
      release(fileSystemId);
    }
  }

  private Path acquire(String fileSystemId, List<String> options) {
    Path mountPoint = workDir.resolve(fileSystemId);
    Entry entry = entries.computeIfAbsent(fileSystemId, id -> new Entry());
    synchronized (entry) {
      if (!entry.mounted) {
        try {
          Files.createDirectories(mountPoint);
          if (!mounter.isMountPoint(mountPoint)) {
            backend.mount(new EfsMountRequest(fileSystemId, "/", "", options, false, CallBudget.remaining(EfsMountRequest.FALLBACK_TIMEOUT)),
                mountPoint);
          }
        } catch (CommandException.TimedOut e) {
          throw DriverException.deadlineExceeded("mounting file system " + fileSystemId + " at " + mountPoint
              + " did not finish within the call's deadline (" + e.timeout().toMillis() + " ms) and was stopped; "
              + "check that the controller reaches a mount target of " + fileSystemId + " (security group, NFS port "
              + "2049)");
        } catch (IOException | UncheckedIOException | CommandException e) {
          throw DriverException.internal("the controller cannot mount file system " + fileSystemId + " at "
              + mountPoint + " (" + e.getMessage() + "); efs-dir volumes and --delete-access-point-root-dir need a "
              + "controller that can mount EFS (amazon-efs-utils, a privileged container, IAM client access)", e);
        }
        entry.mounted = true;
        LOG.info("mounted file system {} at {} for directory work", fileSystemId, mountPoint);
      }
      entry.users++;
    }
    return mountPoint;
  }

  private void release(String fileSystemId) {
    Entry entry = entries.get(fileSystemId);
    synchronized (entry) {
      entry.users--;
      if (entry.users == 0 && entry.mounted) {
        Path mountPoint = workDir.resolve(fileSystemId);
        try {
          mounter.unmount(mountPoint);
          Files.deleteIfExists(mountPoint);
          entry.mounted = false;
          LOG.info("unmounted file system {} from {}", fileSystemId, mountPoint);
        } catch (RuntimeException | IOException e) {
          // Left mounted; the next user finds the mount point in use and reuses it.
          LOG.warn("could not unmount file system {} from {}: {}", fileSystemId, mountPoint, e.getMessage());
        }
      }
    }
  }
}
