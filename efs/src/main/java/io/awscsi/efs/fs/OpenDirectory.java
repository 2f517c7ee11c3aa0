package io.awscsi.efs.fs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An open directory, and every operation on what is inside it done relative to that open descriptor: the directory
 * work the drivers do in trees tenants can write to (an EFS file system the controller mounts as root, a volume the
 * node measures, the local stand-in's access-point roots). A path is resolved once, component by component, each
 * opened with {@code O_NOFOLLOW|O_DIRECTORY} relative to its parent; nothing is ever resolved by path again after a
 * check. A tenant who swaps a directory for a symbolic link between two steps only makes the next step fail or skip
 * that entry: {@code openat} refuses the link, {@code unlinkat} removes the link itself, and {@code mkdirat},
 * {@code fchown}, {@code fchmod} and {@code statx} act on the descriptor or on a name in it, never on the link's target.
 *
 * <p>Why the Foreign Function and Memory API and not {@code SecureDirectoryStream}: the stream can open, list, stat
 * and delete relative to a handle, but cannot create a directory ({@code mkdirat}) and only sets the nine permission
 * bits, not setgid or sticky (directoryPerms such as 2775), so creation and modes would still go by path. libc's
 * {@code *at} calls do all of it (Linux; x86_64 and aarch64); the launcher already runs the JVM with
 * {@code --enable-native-access=ALL-UNNAMED}.
 */
public final class OpenDirectory implements AutoCloseable {

  /**
   * The deepest tree walked or removed: one descriptor is open per level. A deeper tree is refused (removal) or
   * left out below that depth (measuring) rather than exhausting the process's descriptors.
   */
  public static final int MAX_DEPTH = 1024;

  /** How often one entry is tried again when it changes between two steps of a removal. */
  private static final int ATTEMPTS = 5;

  private final int fd;
  private final Path path;
  private boolean closed;

  private OpenDirectory(int fd, Path path) {
    this.fd = fd;
    this.path = path;
  }

  /**
   * Opens a directory the driver itself chose (a mount point under its work directory, a kubelet path already
   * checked): links in it are followed, as the driver's own configuration may use them. Everything below goes
   * through {@link #openChild}.
   */
  public static OpenDirectory openTrusted(Path directory) throws IOException {
    Path absolute = directory.toAbsolutePath().normalize();
    Libc.Result r = Libc.openat(Libc.AT_FDCWD, absolute.toString(), Libc.O_RDONLY | Libc.O_DIRECTORY);
    if (r.failed()) {
      throw failure(absolute, r.errno(), "cannot open");
    }
    return new OpenDirectory((int) r.value(), absolute);
  }

  /** The path this directory was reached by (for messages; never resolved again). */
  public Path path() {
    return path;
  }

  /**
   * Opens the subdirectory {@code name} without following a link.
   *
   * @throws LinkRefusedException when it is a symbolic link
   * @throws NotDirectoryException when it is something else than a directory
   * @throws NoSuchFileException when it does not exist
   */
  public OpenDirectory openChild(String name) throws IOException {
    Path child = childPath(name);
    Libc.Result r = Libc.openat(descriptor(), name, Libc.O_RDONLY | Libc.O_DIRECTORY | Libc.O_NOFOLLOW);
    if (r.failed()) {
      if (r.errno() == Libc.ENOTDIR && status(name).map(s -> s.kind() == EntryStatus.Kind.SYMBOLIC_LINK)
          .orElse(false)) {
        throw new LinkRefusedException(child.toString());
      }
      throw failure(child, r.errno(), "cannot open");
    }
    return new OpenDirectory((int) r.value(), child);
  }

  /** {@link #openChild}, or empty when {@code name} does not exist. */
  public Optional<OpenDirectory> openChildIfPresent(String name) throws IOException {
    try {
      return Optional.of(openChild(name));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /**
   * Opens the directory below this one that {@code components} name ("a", "b", "c" for a/b/c), one component at
   * a time, none of them followed if it is a link; no components: this directory again.
   *
   * @return empty when a component does not exist
   */
  public Optional<OpenDirectory> walk(List<String> components) throws IOException {
    OpenDirectory current = this;
    for (String component : components) {
      Optional<OpenDirectory> next;
      try {
        next = current.openChildIfPresent(component);
      } finally {
        if (current != this) {
          current.close();
        }
      }
      if (next.isEmpty()) {
        return Optional.empty();
      }
      current = next.get();
    }
    return Optional.of(current == this ? reopen() : current);
  }

  /**
   * Creates the subdirectory {@code name} with {@code mode} (the umask applies; {@link #setOwnerAndMode} sets the
   * exact mode).
   *
   * @return false when something named {@code name} already exists
   */
  public boolean makeChild(String name, int mode) throws IOException {
    Path child = childPath(name);
    Libc.Result r = Libc.mkdirat(descriptor(), name, mode);
    if (r.failed()) {
      if (r.errno() == Libc.EEXIST) {
        return false;
      }
      throw failure(child, r.errno(), "cannot create");
    }
    return true;
  }

  /**
   * Sets this directory's owner and group ({@code -1}: keep) and then its exact mode, setgid and sticky bits
   * included (a chown clears setgid, so the mode goes last).
   */
  public void setOwnerAndMode(long uid, long gid, int mode) throws IOException {
    if (uid != -1 || gid != -1) {
      Libc.Result r = Libc.fchown(descriptor(), (int) uid, (int) gid);
      if (r.failed()) {
        throw failure(path, r.errno(), "cannot change the owner of");
      }
    }
    Libc.Result r = Libc.fchmod(descriptor(), mode & 07777);
    if (r.failed()) {
      throw failure(path, r.errno(), "cannot change the mode of");
    }
  }

  /** The names in this directory, "." and ".." left out. */
  public List<String> list() throws IOException {
    List<String> names = new ArrayList<>();
    Libc.Result r = Libc.list(descriptor(), names::add);
    if (r.failed()) {
      throw failure(path, r.errno(), "cannot list");
    }
    return names;
  }

  /** This directory's own status. */
  public EntryStatus status() throws IOException {
    return statx("", Libc.AT_EMPTY_PATH, path).orElseThrow(() -> new NoSuchFileException(path.toString()));
  }

  /** The status of {@code name} in this directory (a link's own, not its target's), empty when it is gone. */
  public Optional<EntryStatus> status(String name) throws IOException {
    return statx(name, Libc.AT_SYMLINK_NOFOLLOW, childPath(name));
  }

  private Optional<EntryStatus> statx(String name, int flags, Path what) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment buffer = arena.allocate(Libc.STATX_SIZE_BYTES, 8);
      Libc.Result r = Libc.statx(descriptor(), name, flags, buffer);
      if (r.failed()) {
        if (r.errno() == Libc.ENOENT) {
          return Optional.empty();
        }
        throw failure(what, r.errno(), "cannot stat");
      }
      int mode = Short.toUnsignedInt(buffer.get(java.lang.foreign.ValueLayout.JAVA_SHORT, Libc.STX_MODE));
      EntryStatus.Kind kind = switch (mode & Libc.S_IFMT) {
        case Libc.S_IFDIR -> EntryStatus.Kind.DIRECTORY;
        case Libc.S_IFREG -> EntryStatus.Kind.REGULAR_FILE;
        case Libc.S_IFLNK -> EntryStatus.Kind.SYMBOLIC_LINK;
        default -> EntryStatus.Kind.OTHER;
      };
      String device = Integer.toUnsignedString(Libc.readInt(buffer, Libc.STX_DEV_MAJOR)) + ":"
          + Integer.toUnsignedString(Libc.readInt(buffer, Libc.STX_DEV_MINOR));
      return Optional.of(new EntryStatus(kind, Libc.readLong(buffer, Libc.STX_SIZE), device,
          Libc.readLong(buffer, Libc.STX_INO), Integer.toUnsignedLong(Libc.readInt(buffer, Libc.STX_UID)),
          Integer.toUnsignedLong(Libc.readInt(buffer, Libc.STX_GID)), mode & 07777));
    }
  }

  /**
   * Removes the entry {@code name} of this directory: a file or link is unlinked (a link is never followed), a
   * directory is emptied through its own descriptor and then removed. An entry that changes between two steps (a
   * directory swapped for a link, files added) is tried again; none of it ever reaches outside this directory.
   *
   * @return false when {@code name} did not exist
   * @throws TreeChangedException when the tree kept changing faster than it was removed
   */
  public boolean removeTree(String name) throws IOException {
    return remove(name, 0);
  }

  private boolean remove(String name, int depth) throws IOException {
    Path child = childPath(name);
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      Libc.Result unlink = Libc.unlinkat(descriptor(), name, 0);
      if (!unlink.failed()) {
        return true;
      }
      if (unlink.errno() == Libc.ENOENT) {
        return attempt > 0;
      }
      // Linux answers EISDIR for a directory (POSIX allows EPERM).
      if (unlink.errno() != Libc.EISDIR && unlink.errno() != Libc.EPERM) {
        throw failure(child, unlink.errno(), "cannot remove");
      }
      if (depth >= MAX_DEPTH) {
        throw new FileSystemException(child.toString(), null, "lies more than " + MAX_DEPTH
            + " directories deep; not removed");
      }
      try (OpenDirectory directory = openChild(name)) {
        requireSameFileSystem(directory);
        directory.empty(depth + 1);
      } catch (LinkRefusedException | NotDirectoryException | NoSuchFileException swapped) {
        continue; // no longer a directory: unlink whatever it is now
      }
      Libc.Result rmdir = Libc.unlinkat(descriptor(), name, Libc.AT_REMOVEDIR);
      if (!rmdir.failed() || rmdir.errno() == Libc.ENOENT) {
        return true;
      }
      if (rmdir.errno() != Libc.ENOTEMPTY && rmdir.errno() != Libc.EEXIST && rmdir.errno() != Libc.ENOTDIR) {
        throw failure(child, rmdir.errno(), "cannot remove");
      }
    }
    throw new TreeChangedException(child.toString(), "kept changing while it was removed (" + ATTEMPTS
        + " attempts); nothing outside it was touched");
  }

  /** Removes everything in this directory. */
  private void empty(int depth) throws IOException {
    for (int round = 0; round < ATTEMPTS; round++) {
      List<String> names = list();
      if (names.isEmpty()) {
        return;
      }
      for (String name : names) {
        remove(name, depth);
      }
    }
    if (!list().isEmpty()) {
      throw new TreeChangedException(path.toString(), "kept getting new entries while it was emptied");
    }
  }

  /** A mount point inside the tree (none a tenant can make, but the controller's own) is not descended. */
  private void requireSameFileSystem(OpenDirectory child) throws IOException {
    if (!child.status().device().equals(status().device())) {
      throw new FileSystemException(child.path.toString(), null, "is another file system's mount point; not "
          + "removed");
    }
  }

  /**
   * Visits every entry below this directory, depth first, each through its parent's descriptor; a directory that
   * changes under the walk (swapped for a link, removed) is counted as what it now is or left out, mount points and
   * levels below {@link #MAX_DEPTH} are not entered.
   */
  public void visit(EntryVisitor visitor) throws IOException {
    visit(visitor, status().device(), 0);
  }

  /** What {@link #visit} reports for each entry. */
  @FunctionalInterface
  public interface EntryVisitor {
    void entry(EntryStatus status);
  }

  private void visit(EntryVisitor visitor, String device, int depth) throws IOException {
    for (String name : list()) {
      Optional<EntryStatus> status = status(name);
      if (status.isEmpty()) {
        continue;
      }
      visitor.entry(status.get());
      if (status.get().kind() != EntryStatus.Kind.DIRECTORY || !status.get().device().equals(device)
          || depth + 1 >= MAX_DEPTH) {
        continue;
      }
      try (OpenDirectory child = openChild(name)) {
        child.visit(visitor, device, depth + 1);
      } catch (LinkRefusedException | NotDirectoryException | NoSuchFileException | AccessDeniedException changed) {
        // swapped, removed or unreadable since the stat: left out, as du leaves out what it cannot read
      }
    }
  }

  /** A second descriptor on this directory. */
  private OpenDirectory reopen() throws IOException {
    Libc.Result r = Libc.dup(descriptor());
    if (r.failed()) {
      throw failure(path, r.errno(), "cannot duplicate the descriptor of");
    }
    return new OpenDirectory((int) r.value(), path);
  }

  private int descriptor() {
    if (closed) {
      throw new IllegalStateException(path + " is closed");
    }
    return fd;
  }

  /** Only a single, real name: "", ".", ".." and anything with a slash or NUL would leave this directory. */
  private Path childPath(String name) throws IOException {
    if (name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
        || name.indexOf('\0') >= 0) {
      throw new FileSystemException(path.resolve(name.replace('\0', '?')).toString(), null,
          "is not a single path component");
    }
    return path.resolve(name);
  }

  private static IOException failure(Path what, int errno, String action) {
    String file = what.toString();
    return switch (errno) {
      case Libc.ENOENT -> new NoSuchFileException(file);
      case Libc.ELOOP -> new LinkRefusedException(file);
      case Libc.ENOTDIR -> new NotDirectoryException(file);
      case Libc.EEXIST -> new FileAlreadyExistsException(file);
      case Libc.ENOTEMPTY -> new DirectoryNotEmptyException(file);
      case Libc.EACCES, Libc.EPERM -> new AccessDeniedException(file, null, action + " (errno " + errno + ")");
      default -> new FileSystemException(file, null, action + " failed (errno " + errno + ")");
    };
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      Libc.close(fd);
    }
  }
}
