package io.awscsi.ebs.local;

import io.awscsi.core.host.LoopDevices;
import io.awscsi.ebs.node.NvmeDeviceLocator;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Local stand-in for EBS attachments, for the local runtime and csi-sanity where no EC2 instance exists: an attached
 * volume is a loop device over a sparse file of the volume's size, so the node code stages, formats, mounts and grows
 * real block devices. The controller side reports attachment events; the node side finds the devices through a
 * by-id directory shaped like udev's ({@code <state>/by-id/nvme-Amazon_Elastic_Block_Store_vol0123...} to
 * {@code /dev/loopN}) and checks them by their backing file, with the same {@link NvmeDeviceLocator} as on EC2.
 *
 * <p>A backing file is the volume's content: it survives detach and re-attach and is removed only by
 * {@link #deleted}. Loop devices are released on detach and on {@link #close()}, which also runs from a shutdown hook.
 */
public final class LoopDeviceBackend implements AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(LoopDeviceBackend.class);
  private static final Pattern VOLUME_ID = Pattern.compile("vol-[0-9a-zA-Z]{1,64}");
  private static final String SUFFIX = ".img";

  /** What {@link #close()} does with backing files. */
  public enum Retention {
    /** Keep them: a restarted process finds the volumes' data again. */
    KEEP_FILES,
    /** Delete them: the volumes lived only as long as this process (csi-sanity, a throw-away local run). */
    DELETE_FILES
  }

  private final Path volumesDirectory;
  private final Path byIdDirectory;
  private final LoopDevices loops;
  private final Retention retention;
  private final Thread shutdownHook;
  private boolean closed;

  private LoopDeviceBackend(Path stateDirectory, LoopDevices loops, Retention retention) {
    this.volumesDirectory = stateDirectory.resolve("volumes");
    this.byIdDirectory = stateDirectory.resolve("by-id");
    this.loops = loops;
    this.retention = retention;
    this.shutdownHook = Thread.ofPlatform().name("loop-device-backend-shutdown").unstarted(this::close);
  }

  /** Opens the backend under the state directory (created if missing) and registers its shutdown hook. */
  public static LoopDeviceBackend open(Path stateDirectory, LoopDevices loops, Retention retention) {
    var backend = new LoopDeviceBackend(stateDirectory.toAbsolutePath().normalize(), loops, retention);
    try {
      Files.createDirectories(backend.volumesDirectory);
      Files.createDirectories(backend.byIdDirectory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the loop device state under " + stateDirectory, e);
    }
    Runtime.getRuntime().addShutdownHook(backend.shutdownHook);
    return backend;
  }

  /** The locator the node side uses for these devices. */
  public NvmeDeviceLocator locator(Duration wait) {
    var sysBlock = Path.of("/sys/block");
    return new NvmeDeviceLocator(byIdDirectory, sysBlock, Path.of("/dev"),
        new LoopBackingFileReader(sysBlock, volumesDirectory), wait, Duration.ofMillis(50));
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

  /** The volume was detached: its link is removed and its loop device released; its data stays. */
  public synchronized void detached(String volumeId) {
    requireOpen();
    release(volumeId);
  }

  /** The volume was enlarged: the backing file grows (never shrinks) and an attached device sees the new size. */
  public synchronized void resized(String volumeId, long newSizeBytes) {
    requireOpen();
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
    release(volumeId);
    try {
      Files.deleteIfExists(backingFile(volumeId));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the backing file of " + volumeId, e);
    }
  }

  /** The device the volume is attached as, if it is. */
  public synchronized Optional<Path> device(String volumeId) {
    var file = backingFile(volumeId);
    return Files.exists(file) ? loops.find(file) : Optional.empty();
  }

  /** Releases every loop device of this backend and, with {@link Retention#DELETE_FILES}, the backing files. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // Already shutting down: this is the hook running.
    }
    var failures = new ArrayList<String>();
    for (var file : backingFiles()) {
      var volumeId = volumeIdOf(file.getFileName().toString()).orElse(null);
      try {
        if (volumeId != null) {
          release(volumeId);
        }
        if (retention == Retention.DELETE_FILES) {
          Files.deleteIfExists(file);
        }
      } catch (IOException | RuntimeException e) {
        failures.add(file + ": " + e.getMessage());
      }
    }
    if (!failures.isEmpty()) {
      LOG.error("could not release all local volumes: {}", failures);
    }
  }

  /** The volume id a backing file name stands for. */
  static Optional<String> volumeIdOf(String fileName) {
    if (!fileName.endsWith(SUFFIX)) {
      return Optional.empty();
    }
    var id = fileName.substring(0, fileName.length() - SUFFIX.length());
    return VOLUME_ID.matcher(id).matches() ? Optional.of(id) : Optional.empty();
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

  private Path backingFile(String volumeId) {
    if (!VOLUME_ID.matcher(volumeId).matches()) {
      throw new IllegalArgumentException("not an EBS volume id: " + volumeId);
    }
    return volumesDirectory.resolve(volumeId + SUFFIX);
  }

  private Path byIdLink(String volumeId) {
    return byIdDirectory.resolve(NvmeDeviceLocator.byIdName(volumeId));
  }

  private List<Path> backingFiles() {
    try (Stream<Path> files = Files.list(volumesDirectory)) {
      return files.filter(file -> file.getFileName().toString().endsWith(SUFFIX)).toList();
    } catch (IOException e) {
      return List.of();
    }
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
