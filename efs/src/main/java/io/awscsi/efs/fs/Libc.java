package io.awscsi.efs.fs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Locale;

/**
 * The few libc calls {@link OpenDirectory} needs, through the Foreign Function and Memory API (Linux, glibc or musl,
 * x86_64 and aarch64). Each call returns its result with the errno it left, captured by the linker so nothing the JVM
 * does in between can change it.
 */
final class Libc {

  static final int AT_FDCWD = -100;
  static final int AT_SYMLINK_NOFOLLOW = 0x100;
  static final int AT_REMOVEDIR = 0x200;
  static final int AT_EMPTY_PATH = 0x1000;

  static final int O_RDONLY = 0;
  static final int O_CLOEXEC = 02000000;
  /** O_DIRECTORY and O_NOFOLLOW differ between the architectures (asm-generic vs x86). */
  static final int O_DIRECTORY;
  static final int O_NOFOLLOW;

  static final int EPERM = 1;
  static final int ENOENT = 2;
  static final int EACCES = 13;
  static final int EEXIST = 17;
  static final int EXDEV = 18;
  static final int ENOTDIR = 20;
  static final int EISDIR = 21;
  static final int EMFILE = 24;
  static final int ENOTEMPTY = 39;
  static final int ELOOP = 40;

  static final int S_IFMT = 0170000;
  static final int S_IFDIR = 0040000;
  static final int S_IFREG = 0100000;
  static final int S_IFLNK = 0120000;

  /** STATX_TYPE | STATX_MODE | STATX_UID | STATX_GID | STATX_INO | STATX_SIZE. */
  static final int STATX_WANTED = 0x1 | 0x2 | 0x8 | 0x10 | 0x100 | 0x200;
  /** struct statx is the same on every architecture (include/uapi/linux/stat.h). */
  static final long STATX_SIZE_BYTES = 256;
  static final long STX_UID = 20;
  static final long STX_GID = 24;
  static final long STX_MODE = 28;
  static final long STX_INO = 32;
  static final long STX_SIZE = 40;
  static final long STX_DEV_MAJOR = 136;
  static final long STX_DEV_MINOR = 140;

  /** struct dirent (dirent64 on 64-bit glibc and musl): d_ino, d_off, d_reclen, d_type, then d_name. */
  static final long DIRENT_NAME = 19;
  static final long DIRENT_NAME_MAX = 256;

  static {
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    boolean x86 = arch.equals("amd64") || arch.equals("x86_64");
    O_DIRECTORY = x86 ? 0200000 : 040000;
    O_NOFOLLOW = x86 ? 0400000 : 0100000;
  }

  private static final Linker LINKER = Linker.nativeLinker();
  private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
  private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

  private static final MethodHandle OPENAT = handle("openat",
      FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(3));
  private static final MethodHandle MKDIRAT = handle("mkdirat",
      FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
  private static final MethodHandle UNLINKAT = handle("unlinkat",
      FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
  private static final MethodHandle FCHOWN = handle("fchown",
      FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
  private static final MethodHandle FCHMOD = handle("fchmod", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
  private static final MethodHandle STATX = handle("statx",
      FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
  private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
  private static final MethodHandle DUP = handle("dup", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
  private static final MethodHandle FDOPENDIR = handle("fdopendir", FunctionDescriptor.of(ADDRESS, JAVA_INT));
  private static final MethodHandle REWINDDIR = LINKER.downcallHandle(
      LINKER.defaultLookup().find("rewinddir").orElseThrow(), FunctionDescriptor.ofVoid(ADDRESS));
  private static final MethodHandle READDIR = handle("readdir", FunctionDescriptor.of(ADDRESS, ADDRESS));
  private static final MethodHandle CLOSEDIR = handle("closedir", FunctionDescriptor.of(JAVA_INT, ADDRESS));

  /** A call's return value and the errno it left (meaningful when the call failed). */
  record Result(long value, int errno) {
    boolean failed() {
      return value < 0;
    }
  }

  private Libc() {}

  private static MethodHandle handle(String name, FunctionDescriptor descriptor, Linker.Option... options) {
    Linker.Option[] all = new Linker.Option[options.length + 1];
    all[0] = CAPTURE_ERRNO;
    System.arraycopy(options, 0, all, 1, options.length);
    return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(() ->
        new UnsupportedOperationException("libc has no " + name)), descriptor, all);
  }

  static Result openat(int dirFd, String name, int flags) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      int fd = (int) OPENAT.invokeExact(state, dirFd, arena.allocateFrom(name), flags | O_CLOEXEC, 0);
      return new Result(fd, errno(state));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static Result mkdirat(int dirFd, String name, int mode) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      int r = (int) MKDIRAT.invokeExact(state, dirFd, arena.allocateFrom(name), mode);
      return new Result(r, errno(state));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static Result unlinkat(int dirFd, String name, int flags) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      int r = (int) UNLINKAT.invokeExact(state, dirFd, arena.allocateFrom(name), flags);
      return new Result(r, errno(state));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static Result fchown(int fd, int uid, int gid) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      int r = (int) FCHOWN.invokeExact(state, fd, uid, gid);
      return new Result(r, errno(state));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static Result fchmod(int fd, int mode) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      int r = (int) FCHMOD.invokeExact(state, fd, mode);
      return new Result(r, errno(state));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** statx of {@code name} relative to {@code dirFd} ("" with AT_EMPTY_PATH: the descriptor itself) into buffer. */
  static Result statx(int dirFd, String name, int flags, MemorySegment buffer) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      int r = (int) STATX.invokeExact(state, dirFd, arena.allocateFrom(name), flags, STATX_WANTED, buffer);
      return new Result(r, errno(state));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static Result close(int fd) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      int r = (int) CLOSE.invokeExact(state, fd);
      return new Result(r, errno(state));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static Result dup(int fd) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      int r = (int) DUP.invokeExact(state, fd);
      return new Result(r, errno(state));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * The names in the directory open at {@code fd} ("." and ".." left out), read through a duplicate so {@code fd}
   * stays open; from the start each time.
   */
  static Result list(int fd, java.util.function.Consumer<String> names) {
    Result dup = dup(fd);
    if (dup.failed()) {
      return dup;
    }
    MemorySegment dir;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      dir = (MemorySegment) FDOPENDIR.invokeExact(state, (int) dup.value());
      if (dir.equals(MemorySegment.NULL)) {
        int errno = errno(state);
        close((int) dup.value());
        return new Result(-1, errno);
      }
    } catch (Throwable t) {
      throw rethrow(t);
    }
    try (Arena arena = Arena.ofConfined()) {
      // The duplicate shares the file offset with fd, which an earlier listing left at the end.
      REWINDDIR.invokeExact(dir);
      MemorySegment state = arena.allocate(CALL_STATE);
      while (true) {
        MemorySegment entry = (MemorySegment) READDIR.invokeExact(state, dir);
        if (entry.equals(MemorySegment.NULL)) {
          return new Result(0, 0);
        }
        String name = entry.reinterpret(DIRENT_NAME + DIRENT_NAME_MAX).getString(DIRENT_NAME);
        if (!name.equals(".") && !name.equals("..")) {
          names.accept(name);
        }
      }
    } catch (Throwable t) {
      throw rethrow(t);
    } finally {
      try (Arena arena = Arena.ofConfined()) {
        int ignored = (int) CLOSEDIR.invokeExact(arena.allocate(CALL_STATE), dir);
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }
  }

  static long readLong(MemorySegment buffer, long offset) {
    return buffer.get(JAVA_LONG, offset);
  }

  static int readInt(MemorySegment buffer, long offset) {
    return buffer.get(JAVA_INT, offset);
  }

  private static int errno(MemorySegment state) {
    return (int) ERRNO.get(state, 0L);
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException("native call failed: " + t, t);
  }
}
