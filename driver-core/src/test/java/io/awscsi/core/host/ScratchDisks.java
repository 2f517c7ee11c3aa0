package io.awscsi.core.host;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Real, disposable disks for integration tests: sparse files under a private temporary directory, attached as loop
 * devices. {@link #close()} unmounts everything mounted under the directory (deepest first), detaches every loop
 * device it attached and deletes the directory, collecting failures so one stuck step does not skip the others.
 */
public final class ScratchDisks implements AutoCloseable {

  private final Path root;
  private final CommandRunner runner = ProcessCommandRunner.create();
  private final LinuxMounter mounter = LinuxMounter.create(runner);
  private final LoopDevices loops = new LoopDevices(runner);
  private final List<Path> backingFiles = new ArrayList<>();

  public ScratchDisks() {
    try {
      root = Files.createTempDirectory("scratch-disks").toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Path root() {
    return root;
  }

  public CommandRunner runner() {
    return runner;
  }

  /** A sparse file of this size, attached as a loop device. */
  public Disk newDisk(String name, long sizeBytes) {
    var file = root.resolve(name + ".img");
    try (var raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(sizeBytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    backingFiles.add(file);
    return new Disk(file, loops.attach(file));
  }

  /** A new directory under the scratch root. */
  public Path newDirectory(String name) {
    try {
      return Files.createDirectories(root.resolve(name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Grows the backing file and makes the loop device see the new size, as if the volume had been modified. */
  public void grow(Disk disk, long newSizeBytes) {
    try (var raf = new RandomAccessFile(disk.file().toFile(), "rw")) {
      raf.setLength(newSizeBytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    loops.refreshSize(disk.device());
  }

  /** A scratch disk: its backing file and its loop device. */
  public record Disk(Path file, Path device) {}

  /** Unmounts everything mounted under the scratch root, deepest first (also part of {@link #close()}). */
  public void unmountAll() {
    var failure = new IllegalStateException("unmounting under " + root + " failed");
    unmountAll(failure);
    if (failure.getSuppressed().length > 0) {
      throw failure;
    }
  }

  private void unmountAll(IllegalStateException failure) {
    mounter.mounts().stream()
        .map(MountInfo::mountPoint)
        .filter(mountPoint -> mountPoint.startsWith(root))
        .distinct()
        .sorted(Comparator.comparingInt(Path::getNameCount).reversed())
        .forEach(mountPoint -> {
          try {
            mounter.forceUnmount(mountPoint, Duration.ofSeconds(10));
            mounter.unmount(mountPoint);
          } catch (RuntimeException e) {
            failure.addSuppressed(e);
          }
        });
  }

  @Override
  public void close() {
    var failure = new IllegalStateException("cleaning up scratch disks under " + root + " failed");
    unmountAll(failure);
    // By backing file, never by remembered device name: a test may have detached its device already and the name
    // may since belong to someone else's file.
    for (var file : backingFiles) {
      try {
        loops.find(file).ifPresent(loops::detach);
      } catch (RuntimeException e) {
        failure.addSuppressed(e);
      }
    }
    try (var paths = Files.walk(root)) {
      for (var path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
    if (failure.getSuppressed().length > 0) {
      throw failure;
    }
  }
}
