package io.awscsi.core.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/** The Linux mounter: {@code mount}/{@code umount} through the command runner, state from mountinfo. */
public final class LinuxMounter implements Mounter {

  private static final Logger LOG = LogManager.getLogger(LinuxMounter.class);
  /** strerror texts of the errnos that mean "mounted, but the file system behind it is gone or broken". */
  private static final List<String> CORRUPTION_REASONS = List.of(
      "transport endpoint is not connected", "stale file handle", "stale nfs file handle", "input/output error");
  /** Bounds the unmount loop for stacked mounts; more layers than this means something else keeps mounting. */
  private static final int MAX_STACKED_UNMOUNTS = 8;

  private final CommandRunner runner;
  private final Path mountInfoFile;
  private final Duration statTimeout;

  /** Reads {@code /proc/self/mountinfo}; a stat of a path that takes longer than 10 s is a hung mount. */
  public static LinuxMounter create(CommandRunner runner) {
    return new LinuxMounter(runner, Path.of("/proc/self/mountinfo"), Duration.ofSeconds(10));
  }

  public LinuxMounter(CommandRunner runner, Path mountInfoFile, Duration statTimeout) {
    this.runner = runner;
    this.mountInfoFile = mountInfoFile;
    this.statTimeout = statTimeout;
  }

  @Override
  public List<MountInfo> mounts() {
    try {
      return MountInfo.parseAll(Files.readString(mountInfoFile));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the mount table " + mountInfoFile, e);
    }
  }

  @Override
  public Optional<MountInfo> findMount(Path path) {
    var wanted = comparable(path);
    MountInfo found = null;
    for (var mount : mounts()) {
      if (mount.mountPoint().equals(wanted)) {
        found = mount;
      }
    }
    return Optional.ofNullable(found);
  }

  @Override
  public MountState inspect(Path path) {
    var statFailure = stat(path);
    if (statFailure instanceof StatOutcome.Missing) {
      return findMount(path).<MountState>map(mount -> new MountState.Corrupted(
          "the mount point has been deleted while " + mount.source() + " is still mounted"))
          .orElseGet(MountState.Absent::new);
    }
    if (statFailure instanceof StatOutcome.Broken(var reason)) {
      return new MountState.Corrupted(reason);
    }
    return findMount(path).<MountState>map(MountState.Mounted::new).orElseGet(MountState.NotMounted::new);
  }

  @Override
  public void mount(String source, Path target, String fsType, List<String> options, Duration timeout) {
    var arguments = new ArrayList<String>();
    arguments.add("-t");
    arguments.add(fsType);
    if (!options.isEmpty()) {
      arguments.add("-o");
      arguments.add(String.join(",", options));
    }
    arguments.add(source);
    arguments.add(target.toString());
    runner.run(Command.of(HostTool.MOUNT, arguments).withTimeout(timeout));
    LOG.info("mounted {} ({}) at {} with options {}", source, fsType, target, options);
  }

  @Override
  public void bindMount(Path source, Path target, boolean readOnly, List<String> options) {
    if (readOnly && options.contains("rw")) {
      // Callers refuse this combination with the field named (MountOptions.checkReadOnly); reaching here is a bug.
      throw new IllegalArgumentException("a read-only bind mount of " + source + " cannot take the option rw");
    }
    runner.run(Command.of(HostTool.MOUNT, "-o", "bind", source.toString(), target.toString()));
    var flags = new ArrayList<String>();
    for (var option : options) {
      if (!option.equals("ro")) {
        flags.add(option);
      }
    }
    if (readOnly || options.contains("ro")) {
      flags.add("ro"); // last: mount(8) applies options in order, so nothing after it can make the view writable
    }
    if (!flags.isEmpty()) {
      try {
        runner.run(Command.of(HostTool.MOUNT, "-o", "remount,bind," + String.join(",", flags), target.toString()));
      } catch (CommandException e) {
        // A bind without its flags (a writable view of a read-only volume) must not stay behind.
        undoBind(target, e);
        throw e;
      }
      if (flags.contains("ro") && findMount(target).filter(mount -> !mount.readOnly()).isPresent()) {
        // Never leave a writable view of what was asked read-only, whatever mount(8) did with the options.
        runner.run(Command.of(HostTool.UMOUNT, target.toString()));
        throw new IllegalStateException("the kernel still reports " + target + " read-write after the read-only "
            + "remount; the bind was undone");
      }
    }
    LOG.info("bind-mounted {} at {} with options {}", source, target, flags);
  }

  private void undoBind(Path target, CommandException cause) {
    try {
      runner.run(Command.of(HostTool.UMOUNT, target.toString()));
    } catch (CommandException e) {
      cause.addSuppressed(e);
    }
  }

  @Override
  public void unmount(Path target) {
    for (int layer = 0; ; layer++) {
      var state = inspect(target);
      if (!state.isMountPoint()) {
        return;
      }
      if (layer == MAX_STACKED_UNMOUNTS) {
        throw new IllegalStateException(target + " is still a mount point after " + MAX_STACKED_UNMOUNTS
            + " unmounts; something keeps mounting on it");
      }
      try {
        runner.run(Command.of(HostTool.UMOUNT, target.toString()));
        LOG.info("unmounted {}{}", target, state instanceof MountState.Corrupted(var reason)
            ? " (it was corrupted: " + reason + ")" : "");
      } catch (CommandException.Failed e) {
        if (!isNotMounted(e)) {
          throw e;
        }
      }
    }
  }

  @Override
  public void forceUnmount(Path target, Duration timeout) {
    if (!inspect(target).isMountPoint()) {
      return;
    }
    try {
      runner.run(Command.of(HostTool.UMOUNT, "-f", target.toString()).withTimeout(timeout));
      LOG.info("force-unmounted {}", target);
      return;
    } catch (CommandException.Failed | CommandException.TimedOut e) {
      if (e instanceof CommandException.Failed failed && isNotMounted(failed)) {
        return;
      }
      LOG.warn("forced unmount of {} did not work ({}); detaching it lazily", target, e.getMessage());
    }
    runner.run(Command.of(HostTool.UMOUNT, "-l", target.toString()).withTimeout(timeout));
    LOG.info("lazily unmounted {}", target);
  }

  private static boolean isNotMounted(CommandException.Failed e) {
    var diagnostics = e.diagnostics().toLowerCase(Locale.ROOT);
    return diagnostics.contains("not mounted") || diagnostics.contains("no mount point specified");
  }

  /** The path as the kernel writes it in mountinfo: absolute, normalized, with symlinks in its parents resolved. */
  private static Path comparable(Path path) {
    var absolute = path.toAbsolutePath().normalize();
    var parent = absolute.getParent();
    if (parent == null) {
      return absolute;
    }
    try {
      return parent.toRealPath().resolve(absolute.getFileName());
    } catch (IOException e) {
      return absolute;
    }
  }

  private sealed interface StatOutcome {
    record Healthy() implements StatOutcome {}

    record Missing() implements StatOutcome {}

    record Broken(String reason) implements StatOutcome {}
  }

  /**
   * Stats the path on a virtual thread so a hung NFS mount cannot hang the caller; the stuck thread is abandoned
   * (it finishes or stays blocked in the kernel, as any process touching that mount would).
   */
  private StatOutcome stat(Path path) {
    var future = CompletableFuture.supplyAsync(() -> statNow(path), command -> Thread.ofVirtual().start(command));
    try {
      return future.get(statTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return new StatOutcome.Broken("stat of " + path + " did not return within " + statTimeout
          + " (hung mount)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while checking " + path, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UncheckedIOException io) {
        throw io;
      }
      throw new IllegalStateException("checking " + path + " failed", e.getCause());
    }
  }

  private static StatOutcome statNow(Path path) {
    try {
      Files.readAttributes(path, BasicFileAttributes.class);
      return new StatOutcome.Healthy();
    } catch (NoSuchFileException e) {
      return new StatOutcome.Missing();
    } catch (FileSystemException e) {
      var reason = e.getReason() == null ? "" : e.getReason();
      if (CORRUPTION_REASONS.stream().anyMatch(reason.toLowerCase(Locale.ROOT)::contains)) {
        return new StatOutcome.Broken("stat of " + path + " failed: " + reason);
      }
      throw new UncheckedIOException("cannot stat " + path, e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stat " + path, e);
    }
  }
}
