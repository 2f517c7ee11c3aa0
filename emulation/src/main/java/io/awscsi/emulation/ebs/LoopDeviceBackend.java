package io.awscsi.emulation.ebs;

import io.awscsi.core.host.LoopDevices;
import io.awscsi.core.host.MountInfo;
import io.awscsi.ebs.node.VolumeDeviceLocator;
import io.awscsi.ebs.volume.EbsIds;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Local stand-in for EBS attachments, for the local runtime and csi-sanity where no EC2 instance exists: an attached
 * volume is a loop device over a sparse file of the volume's size, so the node code stages, formats, mounts and grows
 * real block devices. The controller side reports attachment events; the node side finds the devices through a
 * by-id directory shaped like udev's ({@code <state>/by-id/nvme-Amazon_Elastic_Block_Store_vol0123...} to
 * {@code /dev/loopN}) and checks them by their backing file, with the same {@link VolumeDeviceLocator} as on EC2.
 *
 * <p>A backing file is the volume's content: it survives detach, re-attach and any restart of the process, and is
 * removed only by {@link #deleted}. A serving driver's backend is {@link Retention#PERSISTENT}: like an EC2
 * attachment, which outlives the node plugin, its loop devices, links and files stay when the process stops (by
 * SIGTERM or SIGKILL), so a restarted process finds every volume and its data again. Only a throw-away run
 * ({@link Retention#THROW_AWAY}: csi-sanity, {@code local}) removes volumes at {@link #close()}, and only those it
 * made itself, so a second process that opened the same directory and was refused its start removes nothing.
 */
public final class LoopDeviceBackend implements AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(LoopDeviceBackend.class);
  private static final String SUFFIX = ".img";

  /** What {@link #close()} does. */
  public enum Retention {
    /** Nothing: devices, links and files stay for the next process, as EC2 attachments do (the serving driver). */
    PERSISTENT,
    /**
     * Releases the loop devices and deletes the backing files and snapshot copies this backend made: the volumes
     * lived only as long as this process (csi-sanity, the local runtime, tests).
     */
    THROW_AWAY
  }

  private final Path volumesDirectory;
  private final Path byIdDirectory;
  /**
   * {@code <state>/by-instance/<instance id>/}: the by-id links of the volumes attached to one instance, for a cluster
   * of several nodes (e2e/kube-local's multi-node mode), where each node's plugin looks only at its own instance's
   * links, as an EC2 instance sees only the disks attached to it. The shared {@code by-id} stays for one-node runs.
   */
  private final Path byInstanceDirectory;
  private final Path snapshotsDirectory;
  private final LoopDevices loops;
  private final Retention retention;
  private final Thread shutdownHook;
  /** The volumes and snapshots whose files this backend created (THROW_AWAY removes those at close). */
  private final Set<String> made = new LinkedHashSet<>();
  private boolean closed;

  private LoopDeviceBackend(Path stateDirectory, LoopDevices loops, Retention retention) {
    this.volumesDirectory = stateDirectory.resolve("volumes");
    this.byIdDirectory = stateDirectory.resolve("by-id");
    this.byInstanceDirectory = stateDirectory.resolve("by-instance");
    this.snapshotsDirectory = stateDirectory.resolve("snapshots");
    this.loops = loops;
    this.retention = retention;
    this.shutdownHook = Thread.ofPlatform().name("loop-device-backend-shutdown").unstarted(this::close);
  }

  /**
   * Opens the backend under the state directory (created if missing); a THROW_AWAY backend also closes from a
   * shutdown hook, so an interrupted throw-away run leaves nothing behind.
   */
  public static LoopDeviceBackend open(Path stateDirectory, LoopDevices loops, Retention retention) {
    var backend = new LoopDeviceBackend(stateDirectory.toAbsolutePath().normalize(), loops, retention);
    try {
      Files.createDirectories(backend.volumesDirectory);
      Files.createDirectories(backend.byIdDirectory);
      Files.createDirectories(backend.snapshotsDirectory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the loop device state under " + stateDirectory, e);
    }
    if (retention == Retention.THROW_AWAY) {
      Runtime.getRuntime().addShutdownHook(backend.shutdownHook);
    }
    return backend;
  }

  /**
   * The locator the node side uses for these devices: a device is this backend's volume only when its backing file
   * is that volume's file in this state directory (the same device and inode, whatever name the kernel shows); a loop
   * device of anyone else has no identity and is never used.
   */
  public VolumeDeviceLocator locator(Duration wait) {
    var sysBlock = Path.of("/sys/block");
    var dev = Path.of("/dev");
    return new VolumeDeviceLocator(byIdDirectory, sysBlock, dev,
        new LoopBackingFileReader(sysBlock, volumesDirectory, name -> loops.backingFileOf(dev.resolve(name))),
        name -> false, wait, Duration.ofMillis(50));
  }

  /**
   * The volume was attached to this node: its backing file is created (sparse) or grown to the size, attached to a
   * loop device unless it already is, and linked from the by-id directory.
   *
   * @return the by-id link, usable as the publish context's {@code devicePath}
   */
  public synchronized Path attached(String volumeId, long sizeBytes) {
    requireOpen();
    var file = backingFile(volumeId);
    if (!Files.exists(file)) {
      made.add(volumeId);
    }
    growTo(file, sizeBytes);
    var device = loops.find(file).orElseGet(() -> loops.attach(file));
    loops.refreshSize(device);
    var link = byIdLink(volumeId);
    try {
      var temporary = byIdDirectory.resolve("." + link.getFileName() + ".tmp");
      Files.deleteIfExists(temporary);
      Files.createSymbolicLink(temporary, device);
      Files.move(temporary, link, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot link " + link + " to " + device, e);
    }
    LOG.info("local volume {} attached as {} ({} bytes)", volumeId, device, sizeBytes);
    return link;
  }

  /**
   * As {@link #attached(String, long)}, and the volume is also linked from the instance's own by-id directory
   * ({@code by-instance/<instanceId>/}), where a node plugin scoped to that instance finds it. An id that cannot be a
   * directory name gets no instance link.
   */
  public synchronized Path attached(String volumeId, long sizeBytes, String instanceId) {
    Path link = attached(volumeId, sizeBytes);
    if (isInstanceName(instanceId)) {
      var dir = byInstanceDirectory.resolve(instanceId);
      try {
        Files.createDirectories(dir);
        var scoped = dir.resolve(link.getFileName());
        var temporary = dir.resolve("." + link.getFileName() + ".tmp");
        Files.deleteIfExists(temporary);
        Files.createSymbolicLink(temporary, Files.readSymbolicLink(link));
        Files.move(temporary, scoped, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return scoped;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot link " + volumeId + " for instance " + instanceId, e);
      }
    }
    return link;
  }

  /** The volume was detached: its link is removed and its loop device released; its data stays. */
  public synchronized void detached(String volumeId) {
    requireOpen();
    if (isVolumeId(volumeId)) {
      release(volumeId);
    }
  }

  /**
   * The volume was detached from one instance: that instance's link goes; the device is released only when no other
   * instance still has the volume attached (a Multi-Attach volume stays on the others).
   */
  public synchronized void detached(String volumeId, String instanceId) {
    requireOpen();
    if (!isVolumeId(volumeId)) {
      return;
    }
    if (!isInstanceName(instanceId)) {
      release(volumeId);
      return;
    }
    var name = VolumeDeviceLocator.byIdName(volumeId);
    try {
      Files.deleteIfExists(byInstanceDirectory.resolve(instanceId).resolve(name));
      boolean elsewhere = false;
      if (Files.isDirectory(byInstanceDirectory)) {
        try (var instances = Files.list(byInstanceDirectory)) {
          elsewhere = instances.anyMatch(d -> Files.exists(d.resolve(name), java.nio.file.LinkOption.NOFOLLOW_LINKS));
        }
      }
      if (!elsewhere) {
        release(volumeId);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove the link of " + volumeId + " for instance " + instanceId, e);
    }
  }

  private static boolean isInstanceName(String instanceId) {
    return instanceId != null && instanceId.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
  }

  /** The volume was enlarged: the backing file grows (never shrinks) and an attached device sees the new size. */
  public synchronized void resized(String volumeId, long newSizeBytes) {
    requireOpen();
    if (!isVolumeId(volumeId)) {
      return;
    }
    var file = backingFile(volumeId);
    if (!Files.exists(file)) {
      return; // Never attached: the size applies when it is.
    }
    growTo(file, newSizeBytes);
    loops.find(file).ifPresent(loops::refreshSize);
    LOG.info("local volume {} resized to {} bytes", volumeId, newSizeBytes);
  }

  /** The volume was deleted: released if still attached, and its content removed. */
  public synchronized void deleted(String volumeId) {
    requireOpen();
    if (!isVolumeId(volumeId)) {
      return; // no such volume can have a file here
    }
    release(volumeId);
    made.remove(volumeId);
    try {
      Files.deleteIfExists(backingFile(volumeId));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the backing file of " + volumeId, e);
    }
  }

  /**
   * A snapshot of the volume was taken: its content is copied (sparsely) under the snapshot's id, so a volume restored
   * from it later starts with the same data, as an EBS restore does.
   */
  public synchronized void snapshotted(String snapshotId, String volumeId) {
    requireOpen();
    var source = backingFile(volumeId);
    if (!Files.exists(source)) {
      return; // Never attached, so never written: a restore starts empty as well.
    }
    var copy = snapshotFile(snapshotId);
    if (!Files.exists(copy)) {
      made.add(snapshotId);
    }
    SparseCopy.copy(source, copy);
    LOG.info("local snapshot {} of {} taken", snapshotId, volumeId);
  }

  /**
   * The volumes were snapshotted together, as EC2's CreateSnapshots takes them: at one point in time. Copying one
   * backing file after the other would not be one (a write to the first after its copy, followed by a write to the
   * second before its copy, would be in the pair in the wrong order), so every file system mounted on their loop
   * devices is frozen first (what was written reaches the backing files, new writes wait), all copies are made, and
   * all are thawed. A volume without a mounted file system (a raw block volume) is copied as it is.
   *
   * @param snapshotByVolume the member snapshot id of each volume id
   */
  public synchronized void groupSnapshotted(Map<String, String> snapshotByVolume) {
    requireOpen();
    List<Path> frozen = new ArrayList<>();
    try {
      List<MountInfo> mounts = MountInfo.parseAll(Files.readString(Path.of("/proc/self/mountinfo")));
      for (String volumeId : snapshotByVolume.keySet()) {
        var device = Files.exists(backingFile(volumeId)) ? loops.find(backingFile(volumeId)) : Optional.<Path>empty();
        if (device.isEmpty()) {
          continue;
        }
        String numbers = Files.readString(Path.of("/sys/block", device.get().getFileName().toString(), "dev")).strip();
        Optional<Path> mountPoint = mounts.stream().filter(m -> m.deviceNumber().equals(numbers))
            .map(MountInfo::mountPoint).findFirst();
        if (mountPoint.isPresent()) {
          loops.freeze(mountPoint.get());
          frozen.add(mountPoint.get());
        }
      }
      snapshotByVolume.forEach((volumeId, snapshotId) -> snapshotted(snapshotId, volumeId));
      LOG.info("local group snapshot of {} taken at one instant ({} file system(s) frozen)", snapshotByVolume.keySet(),
          frozen.size());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot take the group snapshot of " + snapshotByVolume.keySet(), e);
    } finally {
      for (Path mountPoint : frozen) {
        try {
          loops.thaw(mountPoint);
        } catch (RuntimeException e) {
          LOG.error("cannot thaw {} after a group snapshot: {}", mountPoint, e.getMessage());
        }
      }
    }
  }

  /** A volume was created from a snapshot or cloned from a volume: it starts with that content. */
  public synchronized void createdFrom(String volumeId, String sourceId) {
    requireOpen();
    var source = sourceId.startsWith("snap-") ? snapshotFile(sourceId) : backingFile(sourceId);
    var target = backingFile(volumeId);
    if (Files.exists(source) && !Files.exists(target)) {
      made.add(volumeId);
      SparseCopy.copy(source, target);
      LOG.info("local volume {} seeded from {}", volumeId, sourceId);
    }
  }

  /** The snapshot was deleted: its copy is removed. */
  public synchronized void snapshotDeleted(String snapshotId) {
    requireOpen();
    if (!EbsIds.isSnapshotId(snapshotId)) {
      return;
    }
    made.remove(snapshotId);
    try {
      Files.deleteIfExists(snapshotFile(snapshotId));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the copy of snapshot " + snapshotId, e);
    }
  }

  private Path snapshotFile(String snapshotId) {
    if (!EbsIds.isSnapshotId(snapshotId)) {
      throw new IllegalArgumentException("not an EBS snapshot id: " + snapshotId);
    }
    return snapshotsDirectory.resolve(snapshotId + SUFFIX);
  }

  /** The device the volume is attached as, if it is. */
  public synchronized Optional<Path> device(String volumeId) {
    if (!isVolumeId(volumeId)) {
      return Optional.empty();
    }
    var file = backingFile(volumeId);
    return Files.exists(file) ? loops.find(file) : Optional.empty();
  }

  /**
   * PERSISTENT: nothing (the volumes outlive the process). THROW_AWAY: releases the loop devices of the volumes this
   * backend made and deletes their files and its snapshot copies; volumes another process made stay.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (retention == Retention.PERSISTENT) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // Already shutting down: this is the hook running.
    }
    var failures = new ArrayList<String>();
    for (var id : List.copyOf(made)) {
      try {
        if (id.startsWith("snap-")) {
          Files.deleteIfExists(snapshotFile(id));
        } else {
          release(id);
          Files.deleteIfExists(backingFile(id));
        }
      } catch (IOException | RuntimeException e) {
        failures.add(id + ": " + e.getMessage());
      }
    }
    made.clear();
    if (!failures.isEmpty()) {
      LOG.error("could not remove all local volumes of this throw-away run: {}", failures);
    }
  }

  /** The volume id a backing file name stands for. */
  static Optional<String> volumeIdOf(String fileName) {
    if (!fileName.endsWith(SUFFIX)) {
      return Optional.empty();
    }
    var id = fileName.substring(0, fileName.length() - SUFFIX.length());
    return EbsIds.isVolumeId(id) ? Optional.of(id) : Optional.empty();
  }

  private void release(String volumeId) {
    try {
      Files.deleteIfExists(byIdLink(volumeId));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove the by-id link of " + volumeId, e);
    }
    var file = backingFile(volumeId);
    if (Files.exists(file)) {
      loops.find(file).ifPresent(device -> {
        loops.detach(device);
        LOG.info("local volume {} detached from {}", volumeId, device);
      });
    }
  }

  private static boolean isVolumeId(String volumeId) {
    return EbsIds.isVolumeId(volumeId);
  }

  private Path backingFile(String volumeId) {
    if (!EbsIds.isVolumeId(volumeId)) {
      throw new IllegalArgumentException("not an EBS volume id: " + volumeId);
    }
    return volumesDirectory.resolve(volumeId + SUFFIX);
  }

  private Path byIdLink(String volumeId) {
    return byIdDirectory.resolve(VolumeDeviceLocator.byIdName(volumeId));
  }

  private static void growTo(Path file, long sizeBytes) {
    try (var raf = new RandomAccessFile(file.toFile(), "rw")) {
      if (raf.length() < sizeBytes) {
        raf.setLength(sizeBytes); // sparse: no blocks are written
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot size the backing file " + file, e);
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("the loop device backend is closed");
    }
  }
}
