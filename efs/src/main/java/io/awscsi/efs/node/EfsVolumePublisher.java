package io.awscsi.efs.node;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.CommandException;
import io.awscsi.core.host.MountInfo;
import io.awscsi.core.host.MountState;
import io.awscsi.core.host.MountTargets;
import io.awscsi.core.host.Mounter;
import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.CallBudget;
import io.awscsi.core.provider.NodePublishRequest;
import io.awscsi.core.provider.VolumePublisher;
import io.awscsi.efs.mount.EfsMountBackend;
import io.awscsi.efs.mount.EfsMountRequest;
import io.awscsi.efs.mount.MountMatch;
import io.awscsi.efs.volume.EfsCapabilities;
import io.awscsi.efs.volume.EfsPaths;
import io.awscsi.efs.volume.VolumeHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * NodePublishVolume and NodeUnpublishVolume: one mount per target path (EFS has no staging). Publishing a target that
 * is already mounted is success; a corrupted mount there (a hung or stale NFS mount) is unmounted and mounted again.
 */
public final class EfsVolumePublisher implements VolumePublisher {

  private static final Logger LOG = LogManager.getLogger(EfsVolumePublisher.class);

  private final EfsMountBackend backend;
  private final Mounter mounter;
  private final MountCallLimiter limiter;
  private final String nodeZone;
  private final Duration forceUnmountAfter;
  private final Consumer<Path> unpublished;

  /**
   * @param forceUnmountAfter null to unmount normally; else how long a normal unmount may take before it is forced
   * @param unpublished told of every target unpublished (the stats cache forgets it)
   */
  EfsVolumePublisher(EfsMountBackend backend, Mounter mounter, int maxInflightMountCalls, String nodeZone,
      Duration forceUnmountAfter, Consumer<Path> unpublished) {
    this.backend = backend;
    this.mounter = mounter;
    this.limiter = new MountCallLimiter(maxInflightMountCalls);
    this.nodeZone = nodeZone;
    this.forceUnmountAfter = forceUnmountAfter;
    this.unpublished = unpublished;
  }

  @Override
  @SuppressWarnings("try") // the permit is held for the duration of the block
  public void publish(NodePublishRequest request) {
    VolumeHandle handle = VolumeHandle.parse(request.volumeId());
    if (EfsPaths.isDriverState(handle.path())) {
      // A hand-made PV naming the controller's ledger would hand the driver's records to a pod.
      throw DriverException.invalidArgument("volume_id", "the path of " + request.volumeId() + " lies in a directory"
          + " starting with \"" + EfsPaths.RESERVED_PREFIX + "\", where the driver keeps its own records, never a"
          + " volume");
    }
    EfsCapabilities.unsupported(request.capability()).ifPresent(reason -> {
      throw DriverException.invalidArgument("volume_capability", reason);
    });
    NodeVolumeContext context = NodeVolumeContext.parse(request.volumeContext());
    // ReadOnlyMany is enforced by the mount, whatever the pod asked for.
    boolean readOnly = request.readonly() || request.capability().accessMode().readOnly();
    List<String> flags = request.capability().accessType() instanceof AccessType.Mount m ? m.mountFlags() : List.of();
    List<String> options = EfsMountOptions.compose(handle, context, flags, readOnly, nodeZone);
    Path target = request.targetPath();
    EfsMountRequest mount = new EfsMountRequest(handle.fileSystemId(), handle.path(), handle.accessPointId(), options,
        readOnly);
    try (MountCallLimiter.Permit permit = limiter.acquire(request.volumeId())) {
      if (alreadyMounted(target, mount, handle)) {
        return;
      }
      try {
        // The caller's deadline as it stands now, after any wait for a mount slot.
        backend.mount(mount.withTimeout(CallBudget.remaining(EfsMountRequest.FALLBACK_TIMEOUT)), target);
        LOG.info("NodePublishVolume: mounted {} at {} ({}{})", handle.volumeId(), target, String.join(",", options),
            readOnly ? ", read-only" : "");
      } catch (CommandException.TimedOut e) {
        cleanUp(target);
        throw DriverException.deadlineExceeded("mounting " + handle.volumeId() + " at " + target + " did not finish "
            + "within the call's deadline (" + e.timeout().toMillis() + " ms) and was stopped; the kubelet will try "
            + "again. Check that this node reaches a mount target of " + handle.fileSystemId()
            + " (security group, NFS port 2049)");
      } catch (CommandException e) {
        cleanUp(target);
        // mount.efs failing is the file system, its mount targets or the network not answering, not a driver bug.
        throw DriverException.unavailable("mounting " + handle.volumeId() + " at " + target + " failed: "
            + e.getMessage(), e);
      } catch (UncheckedIOException e) {
        cleanUp(target);
        throw DriverException.internal("mounting " + handle.volumeId() + " at " + target + " failed: "
            + e.getMessage());
      } catch (RuntimeException e) {
        cleanUp(target);
        throw e;
      }
    }
  }

  /**
   * True when the target already holds this volume as asked (the same file system path, read-only flag and the
   * options the mount table shows); another mount there is ALREADY_EXISTS, never "already mounted". Otherwise makes
   * the target a directory ready to mount on.
   */
  private boolean alreadyMounted(Path target, EfsMountRequest request, VolumeHandle handle) {
    MountState state = mounter.inspect(target);
    switch (state) {
      case MountState.Mounted mounted -> {
        MountInfo existing = mounted.mount();
        switch (backend.match(request, existing)) {
          case MountMatch.Same same -> { }
          case MountMatch.Different different -> throw DriverException.alreadyExists("target_path " + target
              + " already has " + different.what() + " mounted, which is not volume " + handle.volumeId()
              + "; unpublish it first");
          case MountMatch.Unknown unknown -> throw DriverException.alreadyExists("target_path " + target
              + " already has " + existing.source() + " (" + existing.fsType() + ") mounted, which cannot be told "
              + "to be volume " + handle.volumeId() + " (" + unknown.why() + "); unpublish it first");
        }
        if (existing.readOnly() != request.readOnly()) {
          throw DriverException.alreadyExists("volume " + handle.volumeId() + " is already mounted at target_path "
              + target + (existing.readOnly() ? " read-only" : " read-write") + "; unpublish it first");
        }
        LOG.info("NodePublishVolume: {} is already mounted at {}", handle.volumeId(), target);
        return true;
      }
      case MountState.Corrupted corrupted -> {
        LOG.warn("NodePublishVolume: the mount at {} is corrupted ({}); mounting {} again", target,
            corrupted.reason(), handle.volumeId());
        unmount(target);
      }
      case MountState.Absent absent -> {
        checkTarget(target);
        try {
          Files.createDirectories(target);
        } catch (IOException e) {
          throw DriverException.internal("cannot create target path " + target + ": " + e.getMessage(), e);
        }
      }
      case MountState.NotMounted notMounted -> checkTarget(target);
    }
    return false;
  }

  private void checkTarget(Path target) {
    MountTargets.problem(mounter, target, MountTargets.Kind.DIRECTORY).ifPresent(problem -> {
      throw DriverException.failedPrecondition("target_path " + target + " " + problem);
    });
  }

  /**
   * Unmounts the target when what is mounted there is an EFS mount of this volume (or cannot be told apart from
   * one); another file system, another volume or the host's own mounts are never unmounted, whatever path is given.
   */
  @Override
  public void unpublish(String volumeId, Path targetPath) {
    try {
      MountState state = mounter.inspect(targetPath);
      if (state.isMountPoint()) {
        Optional<MountInfo> mount = mounter.findMount(targetPath);
        if (mount.isPresent() && !ownMount(volumeId, mount.get(), state)) {
          throw DriverException.failedPrecondition("target_path " + targetPath + " holds " + mount.get().source()
              + " (" + mount.get().fsType() + "), which is not volume " + volumeId + "; it is not unmounted");
        }
        unmount(targetPath);
      }
      if (Files.isSymbolicLink(targetPath) || Files.isRegularFile(targetPath, LinkOption.NOFOLLOW_LINKS)) {
        LOG.info("NodeUnpublishVolume: {} is not mounted at {}, which is not a target this driver made; left as is",
            volumeId, targetPath);
        return;
      }
      Files.deleteIfExists(targetPath);
      unpublished.accept(targetPath);
      LOG.info("NodeUnpublishVolume: unmounted {} from {}", volumeId, targetPath);
    } catch (DirectoryNotEmptyException e) {
      throw DriverException.failedPrecondition("target path " + targetPath + " of " + volumeId + " is not empty after "
          + "the unmount; something else wrote into it, remove its contents");
    } catch (IOException e) {
      throw DriverException.internal("cannot remove target path " + targetPath + ": " + e.getMessage(), e);
    } catch (CommandException | UncheckedIOException e) {
      throw DriverException.unavailable("unmounting " + volumeId + " from " + targetPath + " failed: "
          + e.getMessage(), e);
    }
  }

  /**
   * Whether a mount at a target may be this volume's: of this backend's kind, and not provably another path. A
   * corrupted mount (a hung or stale NFS mount) is unusable to anyone and is always unmounted.
   */
  private boolean ownMount(String volumeId, MountInfo mount, MountState state) {
    if (state instanceof MountState.Corrupted) {
      return true;
    }
    if (!backend.madeHere(mount)) {
      return false;
    }
    VolumeHandle handle = VolumeHandle.parse(volumeId);
    return !(backend.match(new EfsMountRequest(handle.fileSystemId(), handle.path(), handle.accessPointId(),
        List.of(), mount.readOnly()), mount) instanceof MountMatch.Different);
  }

  /**
   * Unmounts; with --force-unmount-after-timeout a normal unmount that does not finish in time (a hung NFS server)
   * is followed by a forced one, and a mount already known to be corrupted is forced at once.
   */
  private void unmount(Path target) {
    if (forceUnmountAfter == null) {
      mounter.unmount(target);
      return;
    }
    if (mounter.inspect(target) instanceof MountState.Corrupted) {
      mounter.forceUnmount(target, forceUnmountAfter);
      return;
    }
    CompletableFuture<Void> normal = CompletableFuture.runAsync(() -> mounter.unmount(target),
        command -> Thread.ofVirtual().name("unmount-" + target.getFileName()).start(command));
    try {
      normal.get(forceUnmountAfter.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      LOG.warn("unmount of {} did not finish within {}; forcing it", target, forceUnmountAfter);
      mounter.forceUnmount(target, forceUnmountAfter);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw DriverException.aborted("interrupted while unmounting " + target);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("unmount of " + target + " failed", e.getCause());
    }
  }

  private void cleanUp(Path target) {
    try {
      if (!mounter.isMountPoint(target)) {
        Files.deleteIfExists(target);
      }
    } catch (IOException | UncheckedIOException | DriverException e) {
      LOG.warn("could not remove target path {} after a failed mount: {}", target, e.getMessage());
    }
  }
}
